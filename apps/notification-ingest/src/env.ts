import { z } from "zod";
import { envBool, loadEnv, providerEnv, trackingEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3006)
  .extend(trackingEnv.shape)
  .extend(providerEnv.shape)
  .extend({
    /**
     * Hosts allowed to serve SNS signing certificates, as a regex on the host name. Default: the strict AWS rule
     * (sns.<region>.amazonaws.com over https). Widen ONLY for local stacks and tests (the simulator's host).
     */
    SNS_CERT_HOST_PATTERN: z.string().optional(),
    /** Local only: accept http:// certificate URLs (the simulator serves its test cert over http). */
    SNS_ALLOW_HTTP_CERT_URLS: envBool,
    /** Comma-separated topic ARNs accepted; empty accepts any topic whose signature verifies. */
    SNS_TOPIC_ARNS: z.string().default(""),
    /** Concurrent notification handlers (spec 8: 20). */
    NOTIFICATION_PREFETCH: z.coerce.number().int().positive().default(20),
  });
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("notification-ingest", envSchema, source);
}
