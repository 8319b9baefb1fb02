import { type AppError, ErrorCode, isAppError } from "@emailsvc/contracts";

/** An error the SMTP handlers pass to smtp-server: `responseCode` is the reply code, the text starts enhanced. */
export interface SmtpError extends Error {
  responseCode: number;
}

export function smtpError(responseCode: number, text: string): SmtpError {
  return Object.assign(new Error(text), { responseCode });
}

/** A temporary failure (the database or S3 did not answer): the client keeps the message and retries. */
export const temporaryFailure = (): SmtpError =>
  smtpError(451, "4.3.0 Temporary failure, the message was not accepted; try again later");

/**
 * One table from the send model's error codes to SMTP replies (RFC 5321 codes, RFC 3463 enhanced codes), as the
 * http package maps them to statuses. Anything else — the database down, S3 failing — is a temporary 451, so a
 * message is never refused for good because of our own trouble.
 */
const REPLIES: Partial<Record<ErrorCode, [number, string]>> = {
  [ErrorCode.SENDER_NOT_VERIFIED]: [550, "5.7.1"],
  [ErrorCode.VALIDATION]: [554, "5.6.0"],
  [ErrorCode.PAYLOAD_TOO_LARGE]: [552, "5.3.4"],
  // Same Message-ID, another message: a client bug, which retrying cannot fix.
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]: [554, "5.6.0"],
  // The monthly quota: temporary, so the client holds the message until the quota allows it.
  [ErrorCode.QUOTA_EXCEEDED]: [452, "4.3.1"],
  [ErrorCode.CONFLICT]: [451, "4.3.0"],
};

export function replyForError(err: unknown): SmtpError {
  if (!isAppError(err)) return temporaryFailure();
  const reply = REPLIES[(err as AppError).code];
  if (!reply) return temporaryFailure();
  return smtpError(reply[0], `${reply[1]} ${err.message}`);
}
