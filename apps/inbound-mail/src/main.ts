import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { inboundConsumer } from "./replies/inbound.consumer";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { processDepsOf } from "./process-deps";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
    const consumer = await deps.broker.consume(inboundConsumer(processDepsOf(deps)), {
      prefetch: env.INBOUND_PREFETCH,
    });
    return async () => {
      await consumer.close();
      await deps.outbox.stop();
    };
  },
});
