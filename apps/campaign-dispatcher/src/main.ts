import { runService } from "@emailsvc/runtime";
import { createTemplateCache } from "@emailsvc/sending";
import { createApp, createInternalApp } from "./app";
import { commandsConsumer } from "./trigger/commands.consumer";
import { createDeps } from "./deps";
import { startDispatchLoop } from "./dispatch/start-dispatch-loop";
import { readEnv } from "./env";

runService({
  readEnv,
  createDeps,
  createApp,
  createInternalApp,
  startWork: async (deps, env) => {
    // Warm-up: the first GetAccount of a process (a new connection, the SDK's first request: 50-190 ms wall on a
    // busy machine, 5-10 ms later) starts now rather than inside the first campaign's first cycle (issue 44), which
    // then awaits the same call; not awaited here, so a slow provider never holds the start.
    void deps.providerQuota.current().catch(() => undefined);
    const loop = startDispatchLoop({
      db: deps.db,
      logger: deps.logger,
      metrics: deps.metrics,
      providerQuota: deps.providerQuota,
      templateCache: createTemplateCache(),
      intervalMs: env.CAMPAIGN_DISPATCH_INTERVAL_MS,
      maxInFlight:
        env.SEND_RATE_PER_SECOND > 0
          ? Math.ceil(env.SEND_RATE_PER_SECOND * env.CAMPAIGN_BACKLOG_SECONDS)
          : env.CAMPAIGN_MAX_IN_FLIGHT,
      onDispatched: () => deps.outbox.kick(),
      config: {
        cycleSize: env.CAMPAIGN_CYCLE_SIZE,
        idsPerMessage: env.CAMPAIGN_IDS_PER_MESSAGE,
        hourMs: env.CAMPAIGN_HOUR_MS,
        tickMs: env.CAMPAIGN_DISPATCH_INTERVAL_MS,
        providerRecheckMs: env.PROVIDER_QUOTA_RECHECK_MS,
        warmupRamp: env.CAMPAIGN_WARMUP_RAMP,
        guard: {
          minSends: env.REPUTATION_MIN_SENDS,
          maxHardBounceRate: env.REPUTATION_MAX_HARD_BOUNCE_RATE,
          maxComplaintRate: env.REPUTATION_MAX_COMPLAINT_RATE,
        },
      },
    });
    deps.kick = loop.kick;
    const commands = await deps.broker.consume(commandsConsumer(loop.kick), { prefetch: 10 });
    return async () => {
      await commands.close();
      await loop.stop();
      await deps.outbox.stop();
    };
  },
});
