import { createSesClient, providerConfigFromEnv } from "@emailsvc/provider";
import { type BaseDeps, createBaseDeps, createOutbox, type Outbox } from "@emailsvc/runtime";
import type { Env } from "./env";
import { createProviderQuota, type ProviderQuota } from "./infra/provider-quota";

export interface Deps extends BaseDeps {
  env: Env;
  outbox: Outbox;
  providerQuota: ProviderQuota;
  /** Runs a dispatch tick now (set once the loop starts: a trigger before that is picked up by the first tick). */
  kick: () => void;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("campaign-dispatcher", env);
  const ses = createSesClient(providerConfigFromEnv(env, "ses", { requestTimeoutMs: 5_000 }));
  return {
    ...base,
    env,
    outbox: createOutbox(base, { batchSize: 500 }),
    providerQuota: createProviderQuota({
      ses,
      fallbackMax: env.PROVIDER_DAILY_QUOTA,
      refreshMs: env.PROVIDER_QUOTA_REFRESH_MS,
      logger: base.logger,
    }),
    kick: () => undefined,
  };
}
