import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { startImports } from "./imports/start-imports";
import { startSchedulerLoop } from "./scheduled-sends/start-scheduler-loop";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
    const loop = startSchedulerLoop({
      db: deps.db,
      logger: deps.logger,
      claimedBy: `${env.HOSTNAME}:${process.pid}`,
      intervalMs: env.SCHEDULER_INTERVAL_MS,
      onDispatched: () => deps.outbox.kick(),
    });
    const imports = await startImports(deps, env);
    return async () => {
      await imports.stop();
      await loop.stop();
      await deps.outbox.stop();
    };
  },
});
