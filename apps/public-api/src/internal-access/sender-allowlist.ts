import type { RequestHandler } from "express";
import { AppError, ErrorCode } from "@emailsvc/http";

export const MSG_SENDER_NOT_ALLOWED =
  "Sender not allowed: an internal send without x-project-id may only use a sender of INTERNAL_SEND_SENDER_ALLOWLIST";

/** `ops@acme.example` allows that address; `@acme.example` every address of that domain. */
export function senderAllowed(allowlist: string[], sender: string): boolean {
  const address = sender.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  return allowlist.includes(address) || (at > 0 && allowlist.includes(address.slice(at)));
}

/**
 * The operator's optional limit on internal POST /send-email without x-project-id (issue 49 item 2). The spec lets
 * such a send skip sender verification, so it may use any identity verified in the SES account, another tenant's
 * included; with INTERNAL_SEND_SENDER_ALLOWLIST set, only the senders listed. Runs after the JSON body is parsed; a
 * body without a string `sender` is left to the route's own 400. An empty list changes nothing (the spec's rule).
 */
export function internalSenderAllowlist(allowlist: string[]): RequestHandler {
  return (req, _res, next) => {
    if (allowlist.length === 0) return next();
    const project = req.header("x-project-id");
    if (project !== undefined && project.trim() !== "") return next(); // the project's verified senders apply
    const sender = (req.body as { sender?: unknown } | undefined)?.sender;
    if (typeof sender !== "string" || senderAllowed(allowlist, sender)) return next();
    next(new AppError(ErrorCode.FORBIDDEN, MSG_SENDER_NOT_ALLOWED));
  };
}
