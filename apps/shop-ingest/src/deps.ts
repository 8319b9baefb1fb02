import { createTemplateCache, type TemplateCache } from "@emailsvc/sending";
import { createDb, type Db } from "@emailsvc/db";
import { type BaseDeps, createBaseDeps, createOutbox, type Outbox } from "@emailsvc/runtime";
import type { Env } from "./env";

export interface Deps extends BaseDeps {
  env: Env;
  outbox: Outbox;
  /** The abandoned-cart templates, cached as the send path caches them. */
  templateCache: TemplateCache;
  /**
   * The receiver's own connections (SHOP_RECEIVER_POOL_MAX): storing a delivery never waits behind the consumers,
   * the abandoned-cart loop or the outbox relay, which share `db`. Closed by `closeReceiverDb` after the HTTP
   * server stops (`db` is closed by the runtime).
   */
  receiverDb: Db;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("shop-ingest", env);
  return {
    ...base,
    env,
    outbox: createOutbox(base),
    templateCache: createTemplateCache(),
    receiverDb: createDb(env.DATABASE_URL, { max: env.SHOP_RECEIVER_POOL_MAX }),
  };
}
