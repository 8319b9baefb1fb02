import { runService } from "@emailsvc/runtime";
import { createApp, createInternalApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";

runService({
  readEnv,
  createDeps,
  createApp,
  createInternalApp,
  // no background work: the stop step only closes the limits' Redis connection
  startWork: async (deps) => async () => deps.limits.redis.disconnect?.(),
});
