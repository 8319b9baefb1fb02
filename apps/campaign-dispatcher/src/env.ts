import { z } from "zod";
import { internalTokenEnv, loadEnv, providerEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

const ratio = z.coerce.number().min(0).max(1);

export const envSchema = serviceEnv(3004, 3104)
  .extend(providerEnv.shape)
  // POST /trigger-campaign's credential (x-internal-token); the sender allowlist is public-api's alone
  .extend({ INTERNAL_TOKEN: internalTokenEnv.shape.INTERNAL_TOKEN })
  .extend({
    /** Spec 8: a dispatch cycle every 5 s (and at once on a trigger). */
    CAMPAIGN_DISPATCH_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
    /** Spec 8: recipients one cycle claims. */
    CAMPAIGN_CYCLE_SIZE: z.coerce.number().int().positive().max(5_000).default(500),
    /** Activity ids per email.bulk-send-requested message: small, so send-worker replicas share a cycle's sends. */
    CAMPAIGN_IDS_PER_MESSAGE: z.coerce.number().int().positive().max(500).default(50),
    /** The global provider rate the send-workers enforce (their SEND_RATE_PER_SECOND; 0 = unlimited). */
    SEND_RATE_PER_SECOND: z.coerce.number().min(0).default(16),
    /**
     * Campaign sends in flight (handed over, not yet answered) are kept under what that rate drains in this many
     * seconds, so the broker never holds a large campaign backlog (with an unlimited rate: CAMPAIGN_MAX_IN_FLIGHT).
     */
    CAMPAIGN_BACKLOG_SECONDS: z.coerce.number().positive().default(15),
    CAMPAIGN_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(5_000),
    /** How long an hour is for batch intervals, send_over_hours and warm-up days (tests shorten it). */
    CAMPAIGN_HOUR_MS: z.coerce.number().int().positive().default(3_600_000),
    /** Spec 8's provider 24-hour quota, when the provider's GetAccount does not answer. */
    PROVIDER_DAILY_QUOTA: z.coerce.number().int().positive().default(106_000),
    /** How long a GetAccount answer is used before it is asked again. */
    PROVIDER_QUOTA_REFRESH_MS: z.coerce.number().int().positive().default(60_000),
    /** A campaign stopped by the provider's rolling 24-hour quota is looked at again after this long. */
    PROVIDER_QUOTA_RECHECK_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    /** The default warm-up ramp of a sending domain: campaign emails on day 1, day 2, … (none after the last). */
    CAMPAIGN_WARMUP_RAMP: z
      .string()
      .default("50000,75000")
      .transform((s, ctx) => {
        const ramp = s
          .split(",")
          .filter((x) => x.trim() !== "")
          .map(Number);
        if (ramp.some((n) => !Number.isInteger(n) || n < 0)) {
          ctx.addIssue({ code: "custom", message: "must be comma-separated whole numbers" });
          return z.NEVER;
        }
        return ramp;
      }),
    /** The reputation guard: over at least this many sends… */
    REPUTATION_MIN_SENDS: z.coerce.number().int().positive().default(500),
    /** …a hard-bounce rate above this (Google's bulk-sender threshold)… */
    REPUTATION_MAX_HARD_BOUNCE_RATE: ratio.default(0.05),
    /** …or a complaint rate above this pauses the campaign. */
    REPUTATION_MAX_COMPLAINT_RATE: ratio.default(0.001),
    /** Replica id in logs; defaults to the host name (the pod name in Kubernetes). */
    HOSTNAME: z.string().default("campaign-dispatcher"),
  });
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("campaign-dispatcher", envSchema, source);
}
