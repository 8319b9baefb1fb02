import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { createSmtpRelay } from "./smtp/smtp-relay";

runService({
  readEnv,
  createDeps,
  createApp,
  // The SMTP listeners open once the broker is ready; on SIGTERM they stop taking connections and let messages in
  // DATA commit and be answered before the outbox relay publishes what it holds and the pool closes.
  startWork: async (deps, env) => {
    const relay = createSmtpRelay(deps, { graceMs: Math.max(1_000, env.SHUTDOWN_TIMEOUT_MS - 5_000) });
    await relay.listen();
    return async () => {
      await relay.close();
      await deps.outbox.stop();
    };
  },
});
