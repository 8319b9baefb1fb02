/**
 * Error codes used across services. Use cases throw `AppError(code, message)`; the error middleware maps
 * the code to the HTTP status through ERROR_STATUS, so no use case knows about HTTP.
 */
export const ErrorCode = {
  VALIDATION: "VALIDATION", // 400: bad or missing input
  UNAUTHORIZED: "UNAUTHORIZED", // 401: missing / invalid / unknown-prefix key
  FORBIDDEN: "FORBIDDEN", // 403
  SENDER_NOT_VERIFIED: "SENDER_NOT_VERIFIED", // 403: spec 4.4, body carries `code`
  NOT_FOUND: "NOT_FOUND", // 404
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED", // 405: a known path asked with another method
  CONFLICT: "CONFLICT", // 409: already exists, or an idempotent request still in flight
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE", // 413
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE", // 415
  IDEMPOTENCY_KEY_REUSED: "IDEMPOTENCY_KEY_REUSED", // 422: same key, different body
  QUOTA_EXCEEDED: "QUOTA_EXCEEDED", // 429: monthly live quota reached
  RATE_LIMITED: "RATE_LIMITED", // 429
  INTERNAL: "INTERNAL", // 500
  PROVIDER_ERROR: "PROVIDER_ERROR", // 502: the email provider failed
  UNAVAILABLE: "UNAVAILABLE", // 503
  PROVIDER_TIMEOUT: "PROVIDER_TIMEOUT", // 504: the email provider did not answer in time
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ERROR_STATUS: Record<ErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SENDER_NOT_VERIFIED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  PROVIDER_ERROR: 502,
  UNAVAILABLE: 503,
  PROVIDER_TIMEOUT: 504,
};

/** Codes that the spec shows in the body (`code` field); others only set the status. */
const PUBLIC_CODES = new Set<ErrorCode>([ErrorCode.SENDER_NOT_VERIFIED]);

export interface AppErrorOptions {
  /** Extra body fields the spec lists for this case (e.g. `currentStatus`). */
  extra?: Record<string, unknown>;
  /** Internal detail for logs only; never sent to the client. */
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    /** User-safe message, sent as `error`. */
    message: string,
    readonly options: AppErrorOptions = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
  }

  toBody(): Record<string, unknown> {
    return {
      success: false,
      error: this.message,
      ...(PUBLIC_CODES.has(this.code) ? { code: this.code } : {}),
      ...this.options.extra,
    };
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
