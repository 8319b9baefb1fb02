import type { z } from "zod";
import { AppError, ErrorCode } from "@emailsvc/contracts";

/**
 * Like parseInput of @emailsvc/http, but the send schemas write self-contained messages ("recipient_email is not
 * a valid email address: x", "Too many attachments: 11. Maximum is 10."): those are used as they are, and only
 * terse ones ("is required") get the field path in front.
 */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new AppError(ErrorCode.VALIDATION, "Invalid request");
  const path = issue.path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
  const top = String(issue.path[0] ?? "");
  const selfContained = !path || issue.message.startsWith(top) || /^Too many /.test(issue.message);
  throw new AppError(ErrorCode.VALIDATION, selfContained ? issue.message : `${path}: ${issue.message}`);
}

/** A required field counts as missing when absent, null, an empty string or an empty array. */
export function isMissing(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === "string" && value.trim() === "") ||
    (Array.isArray(value) && value.length === 0)
  );
}

/** The body as an object, or an empty one (a JSON array, scalar or unparsed body has no fields at all). */
export function bodyObject(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === "object" && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
