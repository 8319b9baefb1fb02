/**
 * How a failed provider call should be handled by its caller:
 * - `throttle`: SES said "slow down"; retry after backing off the send rate.
 * - `transient`: no usable answer (5xx, network, timeout); retry with delay.
 * - `permanent`: SES rejected this request; retrying the same request cannot succeed.
 */
export type ProviderErrorClass = "throttle" | "transient" | "permanent";

const THROTTLE_NAMES = new Set([
  "TooManyRequestsException",
  "ThrottlingException",
  "Throttling",
  "ThrottledException",
  "LimitExceededException",
  "RequestLimitExceeded",
  "SlowDown",
]);

const PERMANENT_NAMES = new Set([
  "MessageRejected",
  "MailFromDomainNotVerifiedException",
  "AccountSuspendedException",
  "SendingPausedException",
  "BadRequestException",
  "ValidationException",
  "InvalidParameterValue",
  "NotFoundException",
  "AlreadyExistsException",
  "ConcurrentModificationException",
  "ConflictException",
  "AccessDeniedException",
  "NoSuchBucket",
  "NoSuchKey",
]);

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

const TIMEOUT_NAMES = new Set(["TimeoutError", "RequestTimeout", "RequestTimeoutException", "AbortError"]);
const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
  $retryable?: { throttling?: boolean };
}

function asErrorLike(err: unknown): ErrorLike {
  return typeof err === "object" && err !== null ? (err as ErrorLike) : {};
}

/** Walks `cause` chains (fetch/undici wrap the socket error), bounded in case of cycles. */
function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 5 && typeof cur === "object" && cur !== null; i++) {
    out.push(asErrorLike(cur));
    cur = (cur as ErrorLike).cause;
  }
  return out;
}

/** True when the call may have reached SES but no answer arrived in time (the send outcome is unknown). */
export function isProviderTimeout(err: unknown): boolean {
  return chain(err).some(
    (e) =>
      (typeof e.name === "string" && TIMEOUT_NAMES.has(e.name)) ||
      (typeof e.code === "string" && TIMEOUT_CODES.has(e.code)),
  );
}

/** Failures before any byte of the request could reach the provider: no connection was made. */
const NOT_CONNECTED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Whether a failed call may still have been accepted by the provider: it ended with no HTTP answer at all (a
 * request timeout, the connection reset or closed while the request was out) rather than before a connection
 * existed (refused, DNS, the connect timeout) or with an answer (throttled, rejected, a 5xx). The SES SDK names a
 * reset or a broken pipe `TimeoutError` as well. A caller must not send such a message again as if it had not
 * gone out: SES may have sent it, and its `Send` notification can still say so.
 */
export function isProviderOutcomeUnknown(err: unknown): boolean {
  const links = chain(err);
  if (links.some((e) => typeof e.$metadata?.httpStatusCode === "number")) return false;
  if (links.some((e) => typeof e.code === "string" && NOT_CONNECTED_CODES.has(e.code))) return false;
  // @smithy/node-http-handler's connectionTimeout (the socket never connected), and a socket error the SDK wrapped
  // as text ("AWS SDK error wrapper for Error: connect ECONNREFUSED …", its code lost)
  const text = links.map((e) => (typeof e.message === "string" ? e.message : "")).join("\n");
  if (text.includes("did not establish a connection")) return false;
  if ([...NOT_CONNECTED_CODES].some((code) => text.includes(code))) return false;
  return classifyProviderError(err) === "transient";
}

export function classifyProviderError(err: unknown): ProviderErrorClass {
  const e = asErrorLike(err);
  const name = typeof e.name === "string" ? e.name : "";
  const status = e.$metadata?.httpStatusCode;

  if (THROTTLE_NAMES.has(name) || status === 429 || e.$retryable?.throttling) return "throttle";
  if (isProviderTimeout(err)) return "transient";
  if (chain(err).some((c) => typeof c.code === "string" && NETWORK_CODES.has(c.code))) return "transient";
  if (PERMANENT_NAMES.has(name)) return "permanent";
  if (typeof status === "number") {
    if (status >= 500) return "transient";
    // 408 is a timeout seen by a proxy in front of SES: nothing was decided, so it is worth retrying.
    if (status === 408) return "transient";
    if (status >= 400) return "permanent";
  }
  // No HTTP answer at all (socket closed, DNS, unknown failure before a response): retrying is the safe default.
  return "transient";
}
