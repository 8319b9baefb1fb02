import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { startSchedulerLoop } from "./use-cases/start-scheduler-loop";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
    const loop = startSchedulerLoop({
      pool: deps.db.pool,
      logger: deps.logger,
      claimedBy: `${env.HOSTNAME}:${process.pid}`,
      intervalMs: env.SCHEDULER_INTERVAL_MS,
      onDispatched: () => deps.outbox.kick(),
    });
    return async () => {
      await loop.stop();
      await deps.outbox.stop();
    };
  },
});
