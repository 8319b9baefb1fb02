import { ConnectionError, isInFlightBody, isQuotaBody, parseRetryAfter } from "./errors.js";

/** How failed attempts are retried. `maxRetries: 0` turns retries off. */
export interface RetryOptions {
  /** Attempts after the first (default 2: at most three requests per call). */
  maxRetries?: number;
  /** First backoff delay; doubled each retry, with jitter (default 500 ms). */
  initialDelayMs?: number;
  /** Ceiling of one backoff delay (default 8 s). */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` waited out inside a call (default 30 s). A longer one is not waited for: the call
   * throws `RateLimitedError` with `retryAfter`, and the caller decides.
   */
  maxRetryAfterMs?: number;
  /** Told before each retry (logging, metrics). */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** The status that caused it, or undefined after a network error. */
  status?: number;
  error?: unknown;
  request: Request;
}

export interface TransportOptions extends RetryOptions {
  /** One attempt's deadline (default 30 s); a timed-out attempt counts as a network error. */
  timeoutMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
}

type Resolved = Required<Omit<TransportOptions, "onRetry" | "fetch">> &
  Pick<TransportOptions, "onRetry"> & { fetch: typeof fetch };

export function resolveTransport(o: TransportOptions = {}): Resolved {
  const f = o.fetch ?? globalThis.fetch;
  if (typeof f !== "function") throw new TypeError("No fetch available: pass `fetch` in the options");
  return {
    maxRetries: Math.max(0, Math.floor(o.maxRetries ?? 2)),
    initialDelayMs: o.initialDelayMs ?? 500,
    maxDelayMs: o.maxDelayMs ?? 8_000,
    maxRetryAfterMs: o.maxRetryAfterMs ?? 30_000,
    timeoutMs: o.timeoutMs ?? 30_000,
    onRetry: o.onRetry,
    fetch: f.bind(globalThis),
  };
}

/** Exponential backoff with "equal jitter": half the delay fixed, half random, so retries of many clients spread. */
export function backoffMs(
  retry: number,
  o: Pick<Resolved, "initialDelayMs" | "maxDelayMs">,
  random = Math.random,
) {
  const ceiling = Math.min(o.maxDelayMs, o.initialDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * A fetch that retries what is safe to retry: network errors and timeouts, 429 (after its `Retry-After`), 5xx, and
 * the 409 of a request whose `Idempotency-Key` is still in flight. Every attempt sends a clone of the same request,
 * so a send's `Idempotency-Key` is the same each time and the service answers a retry with the first send's result.
 */
export function retryingFetch(o: Resolved): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let retry = 0; ; retry++) {
      const last = retry >= o.maxRetries;
      let response: Response;
      try {
        response = await attempt(o, request);
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason ?? error;
        const message = error instanceof Error ? error.message : String(error);
        if (last)
          throw new ConnectionError(`Request failed: ${message}`, {
            status: 0,
            code: "CONNECTION",
            body: undefined,
            cause: error,
          });
        const delayMs = backoffMs(retry, o);
        o.onRetry?.({ attempt: retry + 1, delayMs, error, request });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (last) return response;
      const delayMs = await retryDelay(o, request, response, retry);
      if (delayMs === null) return response;
      await response.body?.cancel().catch(() => undefined);
      o.onRetry?.({ attempt: retry + 1, delayMs, status: response.status, request });
      await sleep(delayMs, request.signal);
    }
  };
}

/** How long to wait before retrying this answer, or null when it is final. */
async function retryDelay(
  o: Resolved,
  request: Request,
  res: Response,
  retry: number,
): Promise<number | null> {
  const status = res.status;
  if (status === 429) {
    if (isQuotaBody(await peekJson(res))) return null;
    const after = parseRetryAfter(res.headers.get("retry-after"));
    if (after === null) return backoffMs(retry, o);
    const ms = after * 1000;
    return ms > o.maxRetryAfterMs ? null : ms;
  }
  if (status >= 500) {
    const after = parseRetryAfter(res.headers.get("retry-after"));
    if (after !== null && after * 1000 <= o.maxRetryAfterMs)
      return Math.max(after * 1000, backoffMs(retry, o));
    return backoffMs(retry, o);
  }
  // The first attempt may still be running on the server (its answer was lost): same key, wait, ask again.
  if (status === 409 && request.headers.has("idempotency-key") && isInFlightBody(await peekJson(res)))
    return backoffMs(retry, o);
  return null;
}

async function peekJson(res: Response): Promise<unknown> {
  try {
    const text = await res.clone().text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  } catch {
    return undefined;
  }
}

/** One attempt under its own deadline, and the caller's signal. */
async function attempt(o: Resolved, request: Request): Promise<Response> {
  const controller = new AbortController();
  const outer = request.signal;
  const onAbort = () => controller.abort(outer.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new Error(`timed out after ${o.timeoutMs} ms`)),
    o.timeoutMs,
  );
  try {
    return await o.fetch(request.clone(), { signal: controller.signal });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
