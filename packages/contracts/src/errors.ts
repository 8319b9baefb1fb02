/**
 * The one error vocabulary of routes, use cases and consumers. Transport-neutral: `@emailsvc/http` maps a code
 * to an HTTP status and the spec's body, `@emailsvc/messaging` to ack, delayed retry or parking. A use case
 * throws `AppError(code, message)` and never knows which of the two called it.
 */
export const ErrorCode = {
  VALIDATION: "VALIDATION", // bad or missing input (HTTP 400; a message: park)
  UNAUTHORIZED: "UNAUTHORIZED", // missing / invalid / unknown-prefix key (401)
  FORBIDDEN: "FORBIDDEN", // 403
  SENDER_NOT_VERIFIED: "SENDER_NOT_VERIFIED", // spec 4.4 (403, body carries `code`)
  NOT_FOUND: "NOT_FOUND", // 404; a message whose row is gone: park
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED", // a known path asked with another method (405)
  CONFLICT: "CONFLICT", // already exists, or an idempotent request still in flight (409)
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE", // 413
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE", // 415
  IDEMPOTENCY_KEY_REUSED: "IDEMPOTENCY_KEY_REUSED", // same key, different body (422)
  QUOTA_EXCEEDED: "QUOTA_EXCEEDED", // monthly live quota reached (429)
  RATE_LIMITED: "RATE_LIMITED", // 429; a message: retry later
  INTERNAL: "INTERNAL", // 500; a message: retry
  PROVIDER_ERROR: "PROVIDER_ERROR", // the email provider failed (502)
  UNAVAILABLE: "UNAVAILABLE", // a dependency is down (503); a message: retry
  PROVIDER_TIMEOUT: "PROVIDER_TIMEOUT", // the email provider did not answer in time (504)
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface AppErrorOptions {
  /** Extra body fields the spec lists for this case (e.g. `currentStatus`). */
  extra?: Record<string, unknown>;
  /** Internal detail for logs only; never sent to the client. */
  cause?: unknown;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    /** User-safe message (the HTTP body's `error`). */
    message: string,
    readonly options: AppErrorOptions = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "AppError";
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/**
 * Codes that no retry of the same message can fix: a consumer parks such a message at once. The rest
 * (INTERNAL, UNAVAILABLE, RATE_LIMITED, PROVIDER_*) are worth a delayed retry.
 */
export const PERMANENT_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ErrorCode.VALIDATION,
  ErrorCode.UNAUTHORIZED,
  ErrorCode.FORBIDDEN,
  ErrorCode.SENDER_NOT_VERIFIED,
  ErrorCode.NOT_FOUND,
  ErrorCode.METHOD_NOT_ALLOWED,
  ErrorCode.CONFLICT,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.IDEMPOTENCY_KEY_REUSED,
]);
