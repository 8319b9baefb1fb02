import type { RequestHandler } from "express";
import { AppError, ErrorCode } from "./errors";
import type { RateLimitRedis } from "./rate-limit";

/**
 * Failed authentications per client address (issue 49 item 5): an address that sent more than `limit` requests
 * with a missing or unknown key within `windowMs` is refused with 429 until the window ends, before its key is
 * looked up. The failures are counted in Redis (every replica adds to one count); the refusal is decided from a
 * small in-process list of blocked addresses, so a request with a good key pays nothing for it, and an attacker's
 * refused request costs neither a Redis round trip nor a database lookup. With Redis down nothing is counted
 * (fail open): the keys' own strength (random, hashed) still stands.
 */
export interface AuthFailureOptions {
  redis: RateLimitRedis;
  /** failed authentications per window and address; 0 turns it off */
  limit: number;
  windowMs: number;
  /** Redis unreachable: called to log it */
  onStoreError?: (err: unknown) => void;
}

const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

export const MSG_TOO_MANY_AUTH_FAILURES =
  "Too many requests with an invalid API key from this address; try again later";

/**
 * The address the gateway saw: the last X-Forwarded-For entry (the one our gateway appended), else the socket's.
 * Not `req.ip`, which with "trust proxy" is the first entry: the client writes that one, and could both slip the
 * count by changing it and get another address blocked by naming it.
 */
export function clientAddress(req: {
  header(name: string): string | undefined;
  socket?: { remoteAddress?: string | undefined } | null;
}): string {
  const forwarded = req.header("x-forwarded-for");
  const last = forwarded?.split(",").at(-1)?.trim();
  return last || req.socket?.remoteAddress || "unknown";
}

/** Express middleware to put before the routes that authenticate with an API key. */
export function authFailureGuard(opts: AuthFailureOptions): RequestHandler {
  /** address → epoch ms until which it is refused */
  const blocked = new Map<string, number>();
  const MAX_BLOCKED = 100_000;
  return (req, res, next) => {
    if (opts.limit <= 0) return next();
    const ip = clientAddress(req);
    const until = blocked.get(ip);
    if (until !== undefined) {
      const left = until - Date.now();
      if (left > 0) {
        res.setHeader("Retry-After", String(Math.ceil(left / 1000)));
        return next(new AppError(ErrorCode.RATE_LIMITED, MSG_TOO_MANY_AUTH_FAILURES));
      }
      blocked.delete(ip);
    }
    res.once("finish", () => {
      if (res.statusCode !== 401) return;
      opts.redis.eval(COUNT, 1, `authfail:${ip}`, opts.windowMs).then(
        (out) => {
          const [n, ttl] = out as [number, number];
          if (n <= opts.limit) return;
          if (blocked.size >= MAX_BLOCKED) blocked.clear();
          blocked.set(ip, Date.now() + Math.max(1000, ttl));
        },
        (err: unknown) => opts.onStoreError?.(err),
      );
    });
    next();
  };
}
