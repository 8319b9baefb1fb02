import { z } from "zod";
import { apiKeyEncryptionEnv, envBool, loadEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

/** Comma-separated milliseconds, each a positive integer. */
const msList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) => s.split(",").map((x) => Number(x.trim())))
    .refine(
      (a) => a.length > 0 && a.every((n) => Number.isInteger(n) && n > 0),
      "comma-separated positive integers",
    );

export const envSchema = serviceEnv(3008)
  .extend(apiKeyEncryptionEnv.shape)
  .extend({
    /**
     * Waits between the 5 attempts (spec 6.3: 30 s, 1 min, 2 min, 4 min; the spec's fifth delay, 8 min, would
     * only precede a sixth attempt, which 5 attempts never make). Tests scale these down.
     */
    WEBHOOK_RETRY_DELAYS_MS: msList("30000,60000,120000,240000"),
    WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(5),
    /** Per attempt (spec 6.3: 10 s). */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    WEBHOOK_PREFETCH: z.coerce.number().int().positive().default(50),
    /**
     * A project's receiver is slow while an attempt takes this long (its last, or one still running); a slow
     * receiver gets at most WEBHOOK_SLOW_RECEIVER_SLOTS of the WEBHOOK_PREFETCH slots, and its other events wait
     * (not counted as attempts) 5 s, then 30 s, 2 min and 10 min as they are deferred again (WEBHOOK_DEFER_MS),
     * so one project's hanging receiver holds up neither the others nor the broker.
     */
    WEBHOOK_SLOW_MS: z.coerce.number().int().positive().default(2_000),
    WEBHOOK_SLOW_RECEIVER_SLOTS: z.coerce.number().int().positive().default(5),
    WEBHOOK_DEFER_MS: msList("5000,30000,120000,600000"),
    /**
     * A project's receiver is failing after this many attempts in a row were refused, timed out or answered 5xx:
     * its events are then deferred (WEBHOOK_DEFER_MS, not counted as attempts) and one attempt at a time probes
     * it, the n-th failed probe in a row waiting the n-th of WEBHOOK_PROBE_MS first; the first probe it answers
     * ends the state. Each delivery still gets its WEBHOOK_MAX_ATTEMPTS attempts. Tests scale these down.
     */
    WEBHOOK_FAILING_AFTER: z.coerce.number().int().positive().default(5),
    WEBHOOK_PROBE_MS: msList("5000,15000,30000,60000,120000"),
    /** How long a project's webhook URLs are trusted in process (a changed URL takes effect within this). */
    WEBHOOK_URL_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
    /**
     * Local stacks and tests only: deliver to non-public addresses too (a receiver on localhost). Otherwise a
     * webhook URL resolving to a loopback, private, link-local (cloud metadata) or reserved address is refused,
     * so a project cannot point the dispatcher at the cluster's own services.
     */
    WEBHOOK_URL_ALLOW_PRIVATE: envBool,
  });
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("webhook-dispatcher", envSchema, source);
}
