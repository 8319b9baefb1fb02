import { createOutboxStore } from "@emailsvc/db";
import { type OutboxRelay, startOutboxRelay } from "@emailsvc/messaging";
import { type BaseDeps, createBaseDeps } from "@emailsvc/runtime";
import type { Env } from "./env";

export interface Deps extends BaseDeps {
  env: Env;
  relay: OutboxRelay;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("scheduler", env);
  const relay = startOutboxRelay({
    store: createOutboxStore(base.db.pool),
    broker: base.broker,
    intervalMs: 1000,
    batchSize: 200,
    logger: base.logger,
  });
  return { ...base, env, relay };
}
