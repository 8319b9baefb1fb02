import { createSesClient } from "@emailsvc/provider";
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
  const ses = createSesClient({
    region: env.AWS_REGION,
    ...(env.AWS_ACCESS_KEY_ID ? { accessKeyId: env.AWS_ACCESS_KEY_ID } : {}),
    ...(env.AWS_SECRET_ACCESS_KEY ? { secretAccessKey: env.AWS_SECRET_ACCESS_KEY } : {}),
    ...(env.SES_ENDPOINT ? { endpoint: env.SES_ENDPOINT } : {}),
    requestTimeoutMs: 5_000,
  });
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
