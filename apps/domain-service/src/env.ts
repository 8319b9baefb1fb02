import { z } from "zod";
import { internalTokenEnv, loadEnv, providerEnv, redisEnv } from "@emailsvc/config";
import { serviceEnv } from "@emailsvc/runtime";

// The internal port serves the same /domains routes to public-api's admin API (the dashboard), acting for the
// project named in x-project-id behind the shared internal token: no API key of the project is needed there.
export const envSchema = serviceEnv(3002, 3102)
  .extend(providerEnv.shape)
  .extend(redisEnv.shape)
  .extend({ INTERNAL_TOKEN: internalTokenEnv.shape.INTERNAL_TOKEN })
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
