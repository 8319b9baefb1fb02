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
    /**
     * Comma-separated topic ARNs accepted: the SES notification topic(s) of this deployment's AWS account.
     * Required: anyone can create a topic in their own account, which AWS signs just as validly, and subscribe
     * this endpoint to it. Only SNS_ALLOW_ANY_TOPIC=true (tests, throw-away stacks) lifts that.
     */
    SNS_TOPIC_ARNS: z.string().default(""),
    SNS_ALLOW_ANY_TOPIC: envBool,
    /** Concurrent notification handlers (spec 8: 20). */
    NOTIFICATION_PREFETCH: z.coerce.number().int().positive().default(20),
  });
export type Env = z.output<typeof envSchema>;

const snsTopicsSet = (env: Env) =>
  env.SNS_ALLOW_ANY_TOPIC || env.SNS_TOPIC_ARNS.split(",").some((t) => t.trim() !== "");

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  const schema = envSchema.refine(snsTopicsSet, {
    path: ["SNS_TOPIC_ARNS"],
    message: "the SES notification topic ARN(s) to accept, comma-separated (or SNS_ALLOW_ANY_TOPIC=true)",
  });
  return loadEnv("notification-ingest", schema, source);
}
