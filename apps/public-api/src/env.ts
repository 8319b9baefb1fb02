import type { z } from "zod";
import { adminEnv, apiKeyEncryptionEnv, inboundEnv, loadEnv, providerEnv, redisEnv, trackingEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3001, 3101)
  .extend(redisEnv.shape)
  .extend(apiKeyEncryptionEnv.shape)
  .extend(adminEnv.shape)
  .extend(trackingEnv.shape)
  .extend(inboundEnv.shape)
  .extend(providerEnv.shape);
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("public-api", envSchema, source);
}
