import type { RequestHandler } from "express";
import { countRateLimit, getAuth, rateLimit, type RateLimitVerdict } from "@emailsvc/http";
import type { Deps } from "../deps";

/**
 * The per-API-key limits of the events (spec 8: 10,000 a minute) and leads endpoints (3,000 a minute), counted in
 * Redis so every replica shares them. With Redis down they fail open (logged at most every 30 s): the same choice
 * as the spec's idempotency cache, since refusing every event during a cache outage would lose data, while the
 * database still guards correctness (unique leads, unique idempotency keys).
 */
export function rateLimits(deps: Pick<Deps, "redis" | "env" | "logger">): {
  events: RequestHandler;
  leads: RequestHandler;
  /** The events limit counted for one key id, for POST /v1/events served ahead of Express. */
  countEvent: (keyId: string) => Promise<RateLimitVerdict | null>;
} {
  let lastLog = 0;
  const onStoreError = (err: unknown) => {
    if (Date.now() - lastLog < 30_000) return;
    lastLog = Date.now();
    deps.logger.warn(
      { err: (err as Error)?.message },
      "rate limit store unavailable: requests pass unlimited",
    );
  };
  const common = {
    redis: deps.redis,
    windowMs: deps.env.RATE_LIMIT_WINDOW_MS,
    keyOf: (res: Parameters<typeof getAuth>[0]) => getAuth(res).keyId,
    onStoreError,
  };
  const events = { ...common, bucket: "events", limit: deps.env.EVENTS_RATE_LIMIT };
  return {
    events: rateLimit(events),
    countEvent: (keyId) => countRateLimit(events, keyId),
    leads: rateLimit({ ...common, bucket: "leads", limit: deps.env.LEADS_RATE_LIMIT }),
  };
}
