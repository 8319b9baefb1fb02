import { z } from "zod";
import { loadEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3005).extend({
  /** How often due scheduled sends are claimed (spec 8: 30 s); it also wakes early for the next due send. */
  SCHEDULER_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  /** Replica id written on claimed rows; defaults to the host name (the pod name in Kubernetes). */
  HOSTNAME: z.string().default("scheduler"),
});
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("scheduler", envSchema, source);
}
