import { findApiKey } from "@emailsvc/db";
import type { ApiKeyLookup } from "@emailsvc/http";
import { type BaseDeps, createBaseDeps } from "@emailsvc/runtime";
import type { Env } from "./env";

export interface Deps extends BaseDeps {
  env: Env;
  lookupApiKey: ApiKeyLookup;
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("public-api", env);
  return {
    ...base,
    env,
    lookupApiKey: async (key) => {
      const found = await findApiKey(base.db, key);
      return found ? { projectId: found.projectId, keyId: found.keyId } : null;
    },
  };
}
