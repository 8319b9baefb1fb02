import { randomUUID } from "node:crypto";
import express, { type Request, type Response, Router } from "express";
import type { SimContext } from "../context";
import { sesMessageId } from "./ids";
import { takeFault } from "./send-email";

/**
 * The SES v1 (Query protocol: a form-encoded POST to `/`, XML answers) calls the platform makes: only
 * SendBounce, which exists in v1 alone (inbound-mail bounces a reply over the size limit to its sender).
 */
export function sesV1Routes(ctx: SimContext): Router {
  const r = Router();
  r.use(express.urlencoded({ extended: false, limit: "2mb", type: () => true }));
  r.post("/", (req: Request, res: Response) => {
    const p = (req.body ?? {}) as Record<string, string>;
    const fault = takeFault(ctx, String(p.Action ?? ""));
    if (fault) return void queryError(res, fault.status, fault.errorType, fault.message);
    if (p.Action !== "SendBounce")
      return void queryError(
        res,
        400,
        "InvalidAction",
        `The provider simulator does not implement ${p.Action}`,
      );
    const original = String(p.OriginalMessageId ?? "");
    const inbound = ctx.state.inbound.find((m) => m.messageId === original);
    if (!inbound)
      return void queryError(
        res,
        400,
        "MessageRejected",
        `Unknown OriginalMessageId ${original.slice(0, 100)}`,
      );
    if (!p.BounceSender) return void queryError(res, 400, "ValidationError", "BounceSender is required");
    const recipients: { recipient: string; bounceType?: string; status?: string; diagnosticCode?: string }[] =
      [];
    for (let i = 1; p[`BouncedRecipientInfoList.member.${i}.Recipient`]; i++) {
      const m = `BouncedRecipientInfoList.member.${i}.`;
      recipients.push({
        recipient: p[`${m}Recipient`]!,
        ...(p[`${m}BounceType`] ? { bounceType: p[`${m}BounceType`] } : {}),
        ...(p[`${m}RecipientDsnFields.Status`] ? { status: p[`${m}RecipientDsnFields.Status`] } : {}),
        ...(p[`${m}RecipientDsnFields.DiagnosticCode`]
          ? { diagnosticCode: p[`${m}RecipientDsnFields.DiagnosticCode`] }
          : {}),
      });
    }
    if (!recipients.length)
      return void queryError(res, 400, "ValidationError", "BouncedRecipientInfoList must not be empty");
    const messageId = sesMessageId();
    ctx.state.bounces.push({
      messageId,
      originalMessageId: original,
      bounceSender: p.BounceSender,
      explanation: p.Explanation ?? "",
      // the bounce goes back to the original message's sender
      to: inbound.source,
      recipients,
      timestamp: new Date().toISOString(),
    });
    res
      .status(200)
      .type("text/xml")
      .send(
        `<SendBounceResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><SendBounceResult>` +
          `<MessageId>${messageId}</MessageId></SendBounceResult><ResponseMetadata><RequestId>${randomUUID()}` +
          `</RequestId></ResponseMetadata></SendBounceResponse>`,
      );
  });
  return r;
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The Query protocol's error shape, which the SDK maps to its named exception. */
function queryError(res: Response, status: number, code: string, message: string): void {
  res
    .status(status)
    .type("text/xml")
    .send(
      `<ErrorResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><Error><Type>Sender</Type>` +
        `<Code>${xml(code)}</Code><Message>${xml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId>` +
        `</ErrorResponse>`,
    );
}
