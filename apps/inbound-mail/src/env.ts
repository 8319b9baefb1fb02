import { z } from "zod";
import { envBool, inboundEnv, loadEnv, providerEnv, snsReceiverEnv, trackingEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3007)
  .extend(providerEnv.shape)
  .extend(inboundEnv.shape)
  // PUBLIC_BASE_URL (the base of attachment links) and TRACKING_SECRET (their HMAC key).
  .extend(trackingEnv.shape)
  // The certificate host rule of the shared SNS receiver; the topics come from INBOUND_SNS_TOPIC_ARNS below.
  .extend(snsReceiverEnv.pick({ SNS_CERT_HOST_PATTERN: true, SNS_ALLOW_HTTP_CERT_URLS: true }).shape)
  .extend({
    /**
     * The SNS topic(s) SES receiving publishes to, comma-separated. Not SNS_TOPIC_ARNS: that is the event topic of
     * notification-ingest, and one ConfigMap holds both. Required unless INBOUND_SNS_ALLOW_ANY_TOPIC=true.
     */
    INBOUND_SNS_TOPIC_ARNS: z.string().default(""),
    INBOUND_SNS_ALLOW_ANY_TOPIC: envBool,
    /** The bucket SES's S3 receipt action writes to: the only bucket MIME is ever read from. */
    INBOUND_BUCKET: z.string().min(3).default("inbound-mail"),
    /** Where attachments are stored (default: the inbound bucket), under `attachments/<project>/<message>/`. */
    INBOUND_ATTACHMENTS_BUCKET: z.string().min(3).optional(),
    /** Spec 8: 150 KB in total, base64 attachments included; a larger reply is bounced, not stored. */
    INBOUND_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(150 * 1024),
    /** The bounce's sender; default MAILER-DAEMON@<INBOUND_DOMAIN>. */
    INBOUND_BOUNCE_SENDER: z.string().email().optional(),
    /** Spec 8: attachment links are valid 7 days. */
    INBOUND_LINK_TTL_DAYS: z.coerce.number().positive().default(7),
    /** The presigned S3 URL a link redirects to lives this long (it is made afresh for every click). */
    INBOUND_PRESIGN_TTL_SECONDS: z.coerce.number().int().positive().default(300),
    /** The subject rule (last resort) looks at threads active within this many days. */
    INBOUND_SUBJECT_WINDOW_DAYS: z.coerce.number().int().positive().default(30),
    /**
     * Spec 4.9: the receiver processes a notification before it answers, so the 200 names the thread and project.
     * It waits at most this long (well inside SNS's 15 s HTTP timeout), then answers `queued` and the consumer
     * finishes it. 0: always answer `queued` and process in the consumer.
     */
    INBOUND_SYNC_BUDGET_MS: z.coerce.number().int().min(0).max(14_000).default(8_000),
    /**
     * Notifications processed in answers at once per replica; past it the receiver is behind (more replies a second
     * than it processes) and answers `queued` at once, so its answers stay fast and the consumer catches up.
     */
    INBOUND_SYNC_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(8),
    /** Notifications processed at once per replica. */
    INBOUND_PREFETCH: z.coerce.number().int().positive().default(16),
  });
export type Env = z.output<typeof envSchema>;

const topicsSet = (env: Env) =>
  env.INBOUND_SNS_ALLOW_ANY_TOPIC || env.INBOUND_SNS_TOPIC_ARNS.split(",").some((t) => t.trim() !== "");

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv(
    "inbound-mail",
    envSchema.refine(topicsSet, {
      path: ["INBOUND_SNS_TOPIC_ARNS"],
      message:
        "the SES receiving topic ARN(s) to accept, comma-separated (or INBOUND_SNS_ALLOW_ANY_TOPIC=true)",
    }),
    source,
  );
}
