import { type BaseDeps, createBaseDeps, createOutbox, type Outbox } from "@emailsvc/runtime";
import type { Env } from "./env";

export interface Deps extends BaseDeps {
  env: Env;
  outbox: Outbox;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("scheduler", env);
  return { ...base, env, outbox: createOutbox(base, { batchSize: 200 }) };
}
