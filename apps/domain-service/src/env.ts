import { z } from "zod";
import { loadEnv, providerEnv, redisEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

export const envSchema = serviceEnv(3002)
  .extend(providerEnv.shape)
  .extend(redisEnv.shape)
  .extend({
    /**
     * Requests a minute per API key on /domains* (issue 49): each may call the provider's identity API, whose own
     * rate is account-wide. A project's `send_rate_limit` does not apply here. 0 turns it off.
     */
    DOMAINS_RATE_LIMIT: z.coerce.number().int().min(0).default(120),
    /** Requests with a missing or unknown key per client address a minute; past it, 429 until the minute ends. */
    AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).default(60),
  });
export type Env = z.output<typeof envSchema>;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  return loadEnv("domain-service", envSchema, source);
}
