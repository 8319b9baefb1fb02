/**
 * Typed errors. Every answer that is not 2xx becomes an `EmailServiceError` (or a subclass chosen by its status and
 * body), so callers can `catch (e) { if (e instanceof RateLimitedError) … }` instead of reading status codes.
 *
 * Error bodies are `{ success: false, error: "<text>" }` (spec 7), plus `code: "SENDER_NOT_VERIFIED"` on the 403 of
 * an unverified sender; the other codes below mirror the server's status table, so `code` is always set.
 */

/** The codes an error can carry: the body's own `code` when it has one, else the one its status stands for. */
export type ErrorCode =
  | "VALIDATION"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "SENDER_NOT_VERIFIED"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "IDEMPOTENCY_KEY_REUSED"
  | "QUOTA_EXCEEDED"
  | "RATE_LIMITED"
  | "INTERNAL"
  | "PROVIDER_ERROR"
  | "UNAVAILABLE"
  | "PROVIDER_TIMEOUT"
  | "CONNECTION"
  | "HTTP_ERROR";

const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: "VALIDATION",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "IDEMPOTENCY_KEY_REUSED",
  429: "RATE_LIMITED",
  500: "INTERNAL",
  502: "PROVIDER_ERROR",
  503: "UNAVAILABLE",
  504: "PROVIDER_TIMEOUT",
};

export interface EmailServiceErrorInit {
  status: number;
  code: ErrorCode | (string & {});
  /** The parsed JSON body (or its text when it was not JSON; undefined when empty). */
  body: unknown;
  headers?: Headers;
  cause?: unknown;
}

/** Any failed call: `status` (0 when no answer came), `code`, and the answer's `body` as the service sent it. */
export class EmailServiceError extends Error {
  readonly status: number;
  readonly code: ErrorCode | (string & {});
  readonly body: unknown;
  /** The answer's headers (absent for a connection error). */
  readonly headers: Headers | undefined;

  constructor(message: string, init: EmailServiceErrorInit) {
    super(message, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.body = init.body;
    this.headers = init.headers;
  }
}

/** 401: the key is missing, revoked, or has an unknown prefix. Retrying does not help. */
export class UnauthorizedError extends EmailServiceError {}

/**
 * 400: the request is invalid. The service names the field at fault in its message (`recipients[3].email is
 * required`, `cc: Too many addresses`, `Missing required fields: recipient_email, sender_email, html_body`):
 * `field` is the first one named, `fields` all of them.
 */
export class ValidationError extends EmailServiceError {
  readonly field: string | undefined;
  readonly fields: string[];

  constructor(message: string, init: EmailServiceErrorInit) {
    super(message, init);
    this.fields = fieldsOf(message);
    this.field = this.fields[0];
  }
}

/** 403 with `code: SENDER_NOT_VERIFIED`: the sender address (and its domain) is not verified for the key's project. */
export class SenderNotVerifiedError extends EmailServiceError {}

/** 404: no such resource in the key's project. */
export class NotFoundError extends EmailServiceError {}

/** 409: already exists, or a request with the same `Idempotency-Key` is still being processed. */
export class ConflictError extends EmailServiceError {}

/** 422: this `Idempotency-Key` was used before with a different request body. */
export class IdempotencyKeyReusedError extends EmailServiceError {}

/** 429: past a rate limit. `retryAfter` is the `Retry-After` header in seconds (null when the answer had none). */
export class RateLimitedError extends EmailServiceError {
  readonly retryAfter: number | null;

  constructor(message: string, init: EmailServiceErrorInit & { retryAfter: number | null }) {
    super(message, init);
    this.retryAfter = init.retryAfter;
  }
}

/** 429 of the monthly quota (live keys): it resets with the month, so it is never retried. */
export class QuotaExceededError extends RateLimitedError {}

/** No answer: the connection failed or timed out on every attempt. `cause` is the last underlying error. */
export class ConnectionError extends EmailServiceError {}

/** `Retry-After` as seconds: a number of seconds, or an HTTP date (RFC 9110 10.2.3). Null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value == null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** True when a 429 body says it is the monthly quota (the only 429 without a window to wait out). */
export function isQuotaBody(body: unknown): boolean {
  return /quota/i.test(messageOf(body) ?? "");
}

/** True when a 409 body is the idempotency layer's "still being processed" (worth retrying with the same key). */
export function isInFlightBody(body: unknown): boolean {
  return /still being processed/i.test(messageOf(body) ?? "");
}

function messageOf(body: unknown): string | undefined {
  if (typeof body === "string") return body;
  if (body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string")
    return (body as { error: string }).error;
  return undefined;
}

/** The fields a validation message names, in the forms the service writes them. */
function fieldsOf(message: string): string[] {
  const missing = /^Missing required fields?:\s*(.+)$/i.exec(message);
  if (missing)
    return missing[1]!
      .replace(/\s*\(.*\)\s*$/, "")
      .split(/\s*,\s*/)
      .filter(Boolean);
  // Field names start lower-case (`sender_email`, `templateId`, `recipients[3].email`); a capitalised first word
  // is prose ("Something is off").
  const FIELD = /^([a-z_][\w-]*(?:\[\d+\]|\.[A-Za-z_][\w-]*)*)/;
  // `path: problem` (zod issues), `field is required`, `a or b is required`, `a and b are required`, `field must …`
  const m = FIELD.exec(message);
  if (!m) return [];
  const rest = message.slice(m[1]!.length);
  if (/^:\s/.test(rest)) return [m[1]!];
  const alternatives =
    /^((?:\s+(?:or|and)\s+[a-z_][\w.[\]-]*)*)\s+(is|are|must|should|requires|array)\b/.exec(rest);
  if (alternatives) {
    const others = alternatives[1]!.split(/\s+(?:or|and)\s+/).filter(Boolean);
    return [m[1]!, ...others];
  }
  return [];
}

/** The error for a non-2xx answer: the subclass its status (and for 403/429 its body) stands for. */
export function errorFromResponse(status: number, body: unknown, headers?: Headers): EmailServiceError {
  const bodyCode =
    body && typeof body === "object" && typeof (body as { code?: unknown }).code === "string"
      ? (body as { code: string }).code
      : undefined;
  const message = messageOf(body) ?? `HTTP ${status}`;
  const quota = status === 429 && isQuotaBody(body);
  const code = bodyCode ?? (quota ? "QUOTA_EXCEEDED" : (CODE_OF_STATUS[status] ?? "HTTP_ERROR"));
  const init: EmailServiceErrorInit = { status, code, body, ...(headers ? { headers } : {}) };
  if (status === 401) return new UnauthorizedError(message, init);
  if (status === 400) return new ValidationError(message, init);
  if (status === 403 && code === "SENDER_NOT_VERIFIED") return new SenderNotVerifiedError(message, init);
  if (status === 404) return new NotFoundError(message, init);
  if (status === 409) return new ConflictError(message, init);
  if (status === 422) return new IdempotencyKeyReusedError(message, init);
  if (status === 429) {
    const retryAfter = parseRetryAfter(headers?.get("retry-after"));
    return quota
      ? new QuotaExceededError(message, { ...init, retryAfter })
      : new RateLimitedError(message, { ...init, retryAfter });
  }
  return new EmailServiceError(message, init);
}
