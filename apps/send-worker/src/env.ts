import { z } from "zod";
import { inboundEnv, loadEnv, providerEnv, redisEnv, trackingEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3003)
  .extend(redisEnv.shape)
  .extend(providerEnv.shape)
  .extend(trackingEnv.shape)
  .extend(inboundEnv.shape)
  .extend({
    /** One global limit for the whole provider account, shared by all replicas through Redis (0 = off). */
    SEND_RATE_PER_SECOND: z.coerce.number().min(0).default(16),
    /** Messages in flight per replica (spec 8: send worker concurrency 20). */
    SEND_PREFETCH: z.coerce.number().int().positive().default(20),
    /** The Redis key of the global rate (every replica of one stack shares it; two stacks on one Redis must not). */
    SEND_RATE_KEY: z.string().min(1).default("emailsvc:send-rate"),
    /** Campaign sends in progress per replica on the bulk lane (spec 8: send worker concurrency 20, campaigns). */
    SEND_BULK_CONCURRENCY: z.coerce.number().int().positive().default(20),
    /** Bulk-lane messages (50 campaign sends each) a replica holds at once: small, so replicas share a campaign. */
    SEND_BULK_PREFETCH: z.coerce.number().int().positive().default(2),
    /**
     * Bulk sends book rate-limit slots only while the slots already booked end within this many ms: a
     * transactional send made during a campaign that saturates the rate waits at most about this long for its slot.
     */
    SEND_BULK_MAX_AHEAD_MS: z.coerce.number().int().positive().default(250),
    ATTACHMENTS_BUCKET: z.string().min(3).default("attachments"),
    /** A provider call taking longer counts as a timeout (transient; 504 on the synchronous path). */
    PROVIDER_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /**
     * A send claimed and still unanswered after this long was never accepted by SES (whose `Send` notification
     * would have settled it by then): the reconciler sends it again, or fails it (outcome_unknown) when its
     * project chose at-most-once. Keep it well past SNS's delivery delay: a later notification means a copy twice.
     */
    SEND_RECONCILE_AFTER_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    /** How often each replica looks for such sends. */
    SEND_RECONCILE_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
    /**
     * Tests only (refused in production): after this many claims, every further claim is held forever instead
     * of calling the provider, so a test can kill the worker between a claim and its provider call.
     */
    SEND_TEST_HOLD_AFTER_CLAIMS: z.coerce.number().int().min(0).optional(),
  });
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("send-worker", envSchema, source);
}
