import { findApiKey } from "@emailsvc/db";
import type { ApiKeyLookup } from "@emailsvc/http";
import { createSesClient, providerConfigFromEnv } from "@emailsvc/provider";
import { type BaseDeps, createBaseDeps, createRedis } from "@emailsvc/runtime";
import type { RateLimitRedis } from "@emailsvc/http";
import type { Env } from "./env";
import { systemTxtLookup, type TxtLookup } from "./identities/dns-check";
import { type IdentityProvider, sesIdentityProvider } from "./identities/provider-port";

export interface Deps extends BaseDeps {
  lookupApiKey: ApiKeyLookup;
  /** INTERNAL_TOKEN: the internal port's credential (public-api's admin API); unset, that port refuses every call. */
  internalToken?: string | undefined;
  provider: IdentityProvider;
  /** DNS TXT lookups (the DMARC record, which the provider does not check). */
  resolveTxt: TxtLookup;
  /** The per-key request limit and the failed-authentication count, shared by replicas (issue 49). */
  limits: {
    redis: RateLimitRedis & { disconnect?: () => void };
    requestsPerMinute: number;
    authFailures: number;
    windowMs: number;
  };
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("domain-service", env);
  const ses = createSesClient(providerConfigFromEnv(env, "ses"));
  // the limits fail open: a request goes on without them when Redis is down
  const redis = createRedis(env.REDIS_URL, base.logger, { purpose: "rate limits", failFast: true });
  return {
    ...base,
    internalToken: env.INTERNAL_TOKEN,
    provider: sesIdentityProvider(ses, env.AWS_REGION),
    resolveTxt: systemTxtLookup(),
    limits: {
      redis,
      requestsPerMinute: env.DOMAINS_RATE_LIMIT,
      authFailures: env.AUTH_FAILURE_LIMIT,
      windowMs: 60_000,
    },
    lookupApiKey: async (key) => {
      const found = await findApiKey(base.db, key);
      return found ? { projectId: found.projectId, keyId: found.keyId } : null;
    },
  };
}
