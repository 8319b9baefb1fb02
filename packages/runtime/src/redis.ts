import { Redis } from "ioredis";
import type { Logger } from "@emailsvc/observability";

export type { Redis };

export interface RedisClientOptions {
  /** What the client serves, for its log line ("idempotency cache", "send rate limiter"). */
  purpose: string;
  /**
   * For a cache a request may do without (idempotency, API keys): no offline queue, no per-command retries and a
   * 1 s command timeout, so with Redis down a command errors at once and the caller goes on without it. Without
   * it, commands wait for a reconnect and are retried (the send rate limiter must not be skipped).
   */
  failFast?: boolean;
  connectTimeoutMs?: number;
}

/**
 * The Redis client of a service. ioredis reports every reconnect attempt as an error; one warning per 30 s is
 * enough to see that Redis is down.
 */
export function createRedis(url: string, logger: Logger, opts: RedisClientOptions): Redis {
  const redis = new Redis(url, {
    ...(opts.connectTimeoutMs ? { connectTimeout: opts.connectTimeoutMs } : {}),
    ...(opts.failFast
      ? {
          commandTimeout: 1_000,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          retryStrategy: (times: number) => Math.min(times * 250, 5_000),
        }
      : { maxRetriesPerRequest: 3 }),
  });
  let lastLog = 0;
  redis.on("error", (err: Error) => {
    if (Date.now() - lastLog < 30_000) return;
    lastLog = Date.now();
    logger.warn({ err: err.message }, `redis (${opts.purpose}) unavailable`);
  });
  return redis;
}
