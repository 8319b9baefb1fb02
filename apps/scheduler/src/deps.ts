import { type BaseDeps, createBaseDeps } from "@emailsvc/runtime";
import type { Env } from "./env";

export type Deps = BaseDeps;

export function createDeps(env: Env): Promise<Deps> {
  return createBaseDeps("scheduler", env);
}
