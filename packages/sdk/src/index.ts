export {
  EmailService,
  type EmailServiceOptions,
  type IdempotentRequestOptions,
  type RequestOptions,
} from "./client.js";
export {
  ConflictError,
  ConnectionError,
  EmailServiceError,
  IdempotencyKeyReusedError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  SenderNotVerifiedError,
  UnauthorizedError,
  ValidationError,
  type ErrorCode,
} from "./errors.js";
export type { RetryInfo, RetryOptions, TransportOptions } from "./transport.js";
export type * from "./types.js";
export * from "./webhooks.js";
