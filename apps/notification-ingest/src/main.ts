import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { notificationConsumer } from "./notifications/notification.consumer";
import { createDeps } from "./deps";
import { readEnv } from "./env";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
    const consumer = await deps.broker.consume(
      notificationConsumer({ db: deps.db, logger: deps.logger, kickOutbox: () => deps.outbox.kick() }),
      { prefetch: env.NOTIFICATION_PREFETCH },
    );
    return async () => {
      await consumer.close();
      // Hits answered before the shutdown are written before the relay that publishes their events stops.
      await deps.hits.flush();
      await deps.outbox.stop();
    };
  },
});
