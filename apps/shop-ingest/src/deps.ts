import { createTemplateCache, type TemplateCache } from "@emailsvc/sending";
import { type BaseDeps, createBaseDeps, createOutbox, type Outbox } from "@emailsvc/runtime";
import type { Env } from "./env";

export interface Deps extends BaseDeps {
  env: Env;
  outbox: Outbox;
  /** The abandoned-cart templates, cached as the send path caches them. */
  templateCache: TemplateCache;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("shop-ingest", env);
  return { ...base, env, outbox: createOutbox(base), templateCache: createTemplateCache() };
}
