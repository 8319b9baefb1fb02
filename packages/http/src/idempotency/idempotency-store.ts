import { createHash, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

/** Spec 5 / 8: responses are kept 24 hours per (project, key). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The first answer to a request with an Idempotency-Key, replayed to its duplicates (the same shape as
 * @emailsvc/sending's, which keeps it on the send's idempotency row as the database backstop).
 */
export interface StoredResponse {
  status: number;
  body: unknown;
}

/** What `begin` found for (scope, key). */
export type BeginResult =
  | { kind: "started"; token: string } // we own the key until complete/release
  | { kind: "in_flight" } // the first request with this key is still being processed → 409
  | { kind: "mismatch" } // the key was used with another request → 422
  | { kind: "replay"; response: StoredResponse } // identical request already answered → replay
  | { kind: "unavailable" }; // the cache is down: process without idempotency (spec 5)

export interface IdempotencyStore {
  begin(scope: string, key: string, fingerprint: string): Promise<BeginResult>;
  /** Caches a 2xx answer for the window. */
  complete(
    scope: string,
    key: string,
    token: string,
    fingerprint: string,
    response: StoredResponse,
  ): Promise<void>;
  /** Forgets an in-flight marker we own (the request failed, so the client may retry with the same key). */
  release(scope: string, key: string, token: string): Promise<void>;
}

type Entry = { s: "p"; f: string; t: string } | { s: "d"; f: string; status: number; body: unknown };

// Deletes the marker only if it is still ours: a release after expiry must not delete a newer request's marker.
const RELEASE_LUA = `
local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).t == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** How long an in-flight marker lasts when its request never completes nor releases it (a crash). */
export const IN_FLIGHT_TTL_MS = 2 * 60_000;

/** The Redis key; the client's key is hashed so its length and characters never matter to Redis. */
export function redisKey(scope: string, key: string): string {
  return `idem:${scope}:${createHash("sha256").update(key).digest("hex")}`;
}

/**
 * Redis-backed store. One round trip to begin (`SET NX GET` both claims a free key and returns an existing
 * entry). Any Redis error (down, timeout, offline queue disabled) reports "unavailable" so the request goes
 * through; the database's unique (project_id, key) row still stops a duplicate email.
 */
export function createRedisIdempotencyStore(
  redis: Redis,
  opts: { ttlMs?: number; inFlightTtlMs?: number; onError?: (err: unknown) => void } = {},
): IdempotencyStore {
  const ttl = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
  // The in-flight marker outlives any request (the longest waits 29 s for the worker), not a crash: a replica
  // that died mid-request left it for the full 24 h, and every retry got 409 for a day. Once it expires, a
  // retry goes through and the database's (project_id, key) row replays what the first one committed.
  const inFlightTtl = Math.min(ttl, opts.inFlightTtlMs ?? IN_FLIGHT_TTL_MS);
  const onError = opts.onError ?? (() => undefined);
  return {
    async begin(scope, key, fingerprint) {
      const rk = redisKey(scope, key);
      const token = randomUUID();
      const marker: Entry = { s: "p", f: fingerprint, t: token };
      try {
        // Atomic: sets the marker only when the key is free and returns what was there before (nil = it was free).
        const previous = await redis.set(rk, JSON.stringify(marker), "PX", inFlightTtl, "NX", "GET");
        if (previous === null) return { kind: "started", token };
        const entry = JSON.parse(previous) as Entry;
        if (entry.f !== fingerprint) return { kind: "mismatch" };
        if (entry.s === "p") return { kind: "in_flight" };
        return { kind: "replay", response: { status: entry.status, body: entry.body } };
      } catch (err) {
        onError(err);
        return { kind: "unavailable" };
      }
    },
    async complete(scope, key, _token, fingerprint, response) {
      const entry: Entry = { s: "d", f: fingerprint, status: response.status, body: response.body };
      try {
        await redis.set(redisKey(scope, key), JSON.stringify(entry), "PX", ttl);
      } catch (err) {
        onError(err);
      }
    },
    async release(scope, key, token) {
      try {
        await redis.eval(RELEASE_LUA, 1, redisKey(scope, key), token);
      } catch (err) {
        onError(err);
      }
    },
  };
}
