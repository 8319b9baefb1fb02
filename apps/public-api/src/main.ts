import { runService } from "@emailsvc/runtime";
import { createApp, createInternalApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";

runService({
  readEnv,
  createDeps,
  createApp,
  createInternalApp,
  // The outbox relay publishes what the accept transactions committed; each commit kicks it.
  startWork: async (deps) => {
    deps.outbox.start();
    return async () => {
      await deps.outbox.stop();
      await deps.closeExtras();
    };
  },
});
