import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { eventsConsumer } from "./consumers/events.consumer";
import { createDeps } from "./deps";
import { readEnv } from "./env";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
    const consumer = await deps.broker.consume(
      eventsConsumer(deps.deliver, deps.slowReceivers, deps.failingReceivers),
      {
        prefetch: env.WEBHOOK_PREFETCH,
      },
    );
    return () => consumer.close();
  },
});
