import { z } from "zod";
import { apiKeyEncryptionEnv, loadEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

/** Shop webhooks (spec 4.9 /webhooks/shop/:topic) and the abandoned-cart timers. */
const shopEnv = z.object({
  /** How long a shop connection (and its decrypted secrets) is held: a rotation takes effect within it. */
  SHOP_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  /**
   * Deliveries each topic's consumer holds at once. They are applied in batches (one statement per batch), so a
   * deep prefetch keeps the batches full while the previous ones commit.
   */
  SHOP_PREFETCH: z.coerce.number().int().positive().default(200),
  /** Deliveries of one topic applied in one statement at most. */
  SHOP_BATCH: z.coerce.number().int().positive().default(100),
  /**
   * Connections of the receiver's own pool: the deliveries being answered are stored (group commit, one statement
   * in flight per connection but one, which is left to the shop lookups) on connections the consumers and the
   * outbox relay never hold, so a burst of processing cannot make the platform's requests wait for a connection.
   * Several statements in flight let their commits share PostgreSQL's WAL flushes; on bench/shop 3 and 5
   * connections measured alike (within the machine's drift), so the smaller pool is the default.
   */
  SHOP_RECEIVER_POOL_MAX: z.coerce.number().int().min(2).default(3),
  /**
   * Where the topic consumers and the abandoned-cart loop run: `thread`, a worker thread of their own (its own
   * event loop, heap, PostgreSQL pool and broker connection), so the receiver's answers never wait behind a batch
   * being applied or its garbage collection; `inline`, on the receiver's event loop.
   */
  SHOP_PROCESSING: z.enum(["thread", "inline"]).default("thread"),
  /** How often due abandoned-cart steps are claimed. */
  SHOP_TIMER_INTERVAL_MS: z.coerce.number().int().positive().default(15_000),
  /** Steps one claim takes (FOR UPDATE SKIP LOCKED: replicas take disjoint steps). */
  SHOP_TIMER_BATCH: z.coerce.number().int().positive().default(100),
  /** How long a replica holds a claimed step before another may take it (it died mid-send). */
  SHOP_STEP_CLAIM_SECONDS: z.coerce.number().int().positive().default(300),
  /**
   * Seconds in one "minute" of the shop's step delays and the attribution windows' hours are not scaled. Tests
   * and demos set it low (e.g. 1: a 60-minute step waits 60 s); production keeps 60.
   */
  SHOP_STEP_UNIT_SECONDS: z.coerce.number().int().positive().default(60),
});

export const envSchema = serviceEnv(3009).extend(apiKeyEncryptionEnv.shape).extend(shopEnv.shape);
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("shop-ingest", envSchema, source);
}
