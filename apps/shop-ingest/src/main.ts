import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { startProcessingThread } from "./processing/processing-thread";
import { startProcessing } from "./processing/start-processing";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
    // the receiver (createApp) answers on this thread; processing runs in a thread of its own by default
    const stopProcessing =
      env.SHOP_PROCESSING === "thread"
        ? await startProcessingThread({ logger: deps.logger, metrics: deps.metrics })
        : await startProcessing({ ...deps, kickOutbox: () => deps.outbox.kick() }, env);
    return async () => {
      await stopProcessing();
      await deps.outbox.stop();
      await deps.receiverDb.close();
    };
  },
});
