import type { z } from "zod";
import { loadEnv, providerEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3002).extend(providerEnv.shape);
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("domain-service", envSchema, source);
}
