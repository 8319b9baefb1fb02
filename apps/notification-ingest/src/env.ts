import { z } from "zod";
import {
  loadEnv,
  providerEnv,
  SNS_TOPICS_REQUIRED,
  snsReceiverEnv,
  snsTopicsSet,
  trackingEnv,
} from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3006)
  .extend(trackingEnv.shape)
  .extend(providerEnv.shape)
  // The SES notification topic(s) of this deployment's AWS account, and the certificate host rule.
  .extend(snsReceiverEnv.shape)
  .extend({
    /** Concurrent notification handlers (spec 8: 20). */
    NOTIFICATION_PREFETCH: z.coerce.number().int().positive().default(20),
  });
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("notification-ingest", envSchema.refine(snsTopicsSet, SNS_TOPICS_REQUIRED), source);
}
