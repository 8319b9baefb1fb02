import { findApiKey } from "@emailsvc/db";
import type { ApiKeyLookup } from "@emailsvc/http";
import { createSesClient, providerConfigFromEnv } from "@emailsvc/provider";
import { type BaseDeps, createBaseDeps } from "@emailsvc/runtime";
import type { Env } from "./env";
import { systemTxtLookup, type TxtLookup } from "./use-cases/dns-check";
import { type IdentityProvider, sesIdentityProvider } from "./use-cases/provider-port";

export interface Deps extends BaseDeps {
  lookupApiKey: ApiKeyLookup;
  provider: IdentityProvider;
  /** DNS TXT lookups (the DMARC record, which the provider does not check). */
  resolveTxt: TxtLookup;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("domain-service", env);
  const ses = createSesClient(providerConfigFromEnv(env, "ses"));
  return {
    ...base,
    provider: sesIdentityProvider(ses, env.AWS_REGION),
    resolveTxt: systemTxtLookup(),
    lookupApiKey: async (key) => {
      const found = await findApiKey(base.db, key);
      return found ? { projectId: found.projectId, keyId: found.keyId } : null;
    },
  };
}
