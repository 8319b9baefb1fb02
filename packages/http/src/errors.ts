import { AppError, ErrorCode } from "@emailsvc/contracts";

// The vocabulary itself is transport-neutral (contracts); HTTP routes keep importing it from here.
export { AppError, ErrorCode, isAppError, type AppErrorOptions } from "@emailsvc/contracts";

/** The HTTP status of each code: the one table the error middleware answers from. */
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

export const httpStatusOf = (err: AppError): number => ERROR_STATUS[err.code];

/** The spec's error body: `{ success: false, error }`, plus `code` where the spec has one and any extra fields. */
export function errorBodyOf(err: AppError): Record<string, unknown> {
  return {
    success: false,
    error: err.message,
    ...(PUBLIC_CODES.has(err.code) ? { code: err.code } : {}),
    ...err.options.extra,
  };
}
