import type { ProjectId } from "@emailsvc/contracts";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { hashApiKey } from "@emailsvc/db";
import type { ApiKeyLookup } from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";

/** Redis channel on which a replica announces that a project's keys changed (regenerated or revoked). */
export const API_KEYS_CHANGED_CHANNEL = "emailsvc:api-keys-changed";

/** How long a found API key is trusted without asking the database again. */
export const API_KEY_CACHE_TTL_MS = 10_000;

export interface ApiKeyCache {
  lookup: ApiKeyLookup;
  /** After a key change: drops this replica's cached keys and tells every other replica to drop theirs. */
  keysChanged(projectId: ProjectId): Promise<void>;
  /** Whether the subscription is up, so found keys are cached. */
  listening(): boolean;
  close(): void;
}

/**
 * Every request authenticates: found keys are kept briefly in process (by SHA-256 of the key, never the key
 * itself), so the send path skips one database round trip. Spec 5.5 wants a regenerated key refused at once,
 * on every replica: a change is published on Redis and each replica, subscribed, drops its cache. The cache
 * is used only while this replica's subscription is up; without it (Redis down, reconnecting) every request
 * asks the database, and the cache starts empty again once the subscription is back, since announcements may
 * have been missed meanwhile. Unknown keys are never cached, so a new key works at once.
 */
export function createApiKeyCache(lookup: ApiKeyLookup, redis: Redis, logger: Logger): ApiKeyCache {
  type Found = NonNullable<Awaited<ReturnType<ApiKeyLookup>>>;
  const cache = new LRUCache<string, Found>({ max: 10_000, ttl: API_KEY_CACHE_TTL_MS });
  let listening = false;
  // Bumped by every event that may have made cached keys stale: a lookup whose database read began before it
  // (and so may have read the old key) must not put its answer in the cache after it.
  let generation = 0;
  const invalidate = () => {
    generation++;
    cache.clear();
  };
  const sub = redis.duplicate();
  sub.on("error", () => {
    // The main connection already logs Redis being unreachable; a down subscription only disables the cache.
  });
  sub.on("ready", () => {
    invalidate();
    sub.subscribe(API_KEYS_CHANGED_CHANNEL).then(
      () => {
        invalidate();
        listening = true;
      },
      (err: Error) => logger.warn({ err: err.message }, "cannot subscribe to API key changes; key cache off"),
    );
  });
  sub.on("close", () => {
    listening = false;
    invalidate();
  });
  sub.on("message", invalidate);

  return {
    async lookup(key) {
      const id = hashApiKey(key);
      if (listening) {
        const hit = cache.get(id);
        if (hit) return hit;
      }
      const before = generation;
      const found = await lookup(key);
      if (found && listening && generation === before) cache.set(id, found);
      return found;
    },
    async keysChanged(projectId) {
      invalidate();
      try {
        await redis.publish(API_KEYS_CHANGED_CHANNEL, projectId);
      } catch (err) {
        // Other replicas whose subscription is up keep their cached keys until API_KEY_CACHE_TTL_MS passes.
        logger.warn({ err: (err as Error).message, projectId }, "could not announce an API key change");
      }
    },
    listening: () => listening,
    close() {
      listening = false;
      sub.disconnect();
    },
  };
}
