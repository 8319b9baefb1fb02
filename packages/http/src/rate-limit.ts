import type { RequestHandler, Response } from "express";
import { AppError, ErrorCode } from "./errors";

/** The one Redis command the limiter needs (ioredis' `eval` fits), so this package needs no Redis client. */
export interface RateLimitRedis {
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/**
 * Fixed window per key, one round trip: INCR, and on the window's first hit PEXPIRE. Returns the count so far
 * and the milliseconds until the window resets. Every replica shares the counter, so the limit is per key for
 * the whole deployment. (A fixed window can let up to twice the limit through around a window's edge; the spec
 * asks for "per minute", and this is the shape its peers document.)
 */
const SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

export interface RateLimitOptions {
  redis: RateLimitRedis;
  /** Requests per window and key; 0 turns the limit off. */
  limit: number;
  windowMs: number;
  /** Names the bucket (`events`, `leads`): one key may have one budget per route group. */
  bucket: string;
  /** The key to count by, or null to skip (e.g. no authenticated key yet). */
  keyOf: (res: Response) => string | null;
  /** Redis unreachable: the request goes through (fail open) and this is called, to log it. */
  onStoreError?: (err: unknown) => void;
}

export const MSG_RATE_LIMITED = (limit: number, windowMs: number): string =>
  `Rate limit exceeded: at most ${limit} requests per ${windowMs === 60_000 ? "minute" : `${windowMs / 1000} s`} per API key`;

/** What one request's count says: the headers to answer with, and the refusal past the limit. */
export interface RateLimitVerdict {
  headers: Record<string, string>;
  refused: AppError | null;
}

/**
 * Counts one request of `key` (the transport-free core of `rateLimit`, for routes served ahead of Express).
 * Null when nothing was counted: the limit is off, or Redis is unreachable (fail open, `onStoreError` told).
 */
export async function countRateLimit(
  opts: Omit<RateLimitOptions, "keyOf">,
  key: string,
): Promise<RateLimitVerdict | null> {
  if (opts.limit <= 0) return null;
  let out: unknown;
  try {
    out = await opts.redis.eval(SCRIPT, 1, `ratelimit:${opts.bucket}:${key}`, opts.windowMs);
  } catch (err) {
    opts.onStoreError?.(err);
    return null;
  }
  const [count, ttl] = out as [number, number];
  const resetSeconds = String(Math.max(1, Math.ceil(ttl / 1000)));
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(opts.limit),
    "RateLimit-Remaining": String(Math.max(0, opts.limit - count)),
    "RateLimit-Reset": resetSeconds,
  };
  if (count <= opts.limit) return { headers, refused: null };
  headers["Retry-After"] = resetSeconds;
  return {
    headers,
    refused: new AppError(ErrorCode.RATE_LIMITED, MSG_RATE_LIMITED(opts.limit, opts.windowMs)),
  };
}

/**
 * Per-key rate limit shared through Redis. Answers carry `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` (seconds); past the limit a 429 with `Retry-After`. With Redis down the limit **fails open**
 * (no headers, the request is served), as the spec's idempotency cache does: an outage of the counter store must
 * not take the events API down with it, and the database, not the counter, protects the data.
 */
export function rateLimit(opts: RateLimitOptions): RequestHandler {
  return (_req, res, next) => {
    const key = opts.limit > 0 ? opts.keyOf(res) : null;
    if (!key) return next();
    countRateLimit(opts, key).then((verdict) => {
      if (!verdict) return next();
      for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
      next(verdict.refused ?? undefined);
    }, next);
  };
}
