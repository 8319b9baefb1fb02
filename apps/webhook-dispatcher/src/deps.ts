import { createDeliveryWrites, createOutboundLoads } from "@emailsvc/db";
import { allowAnyAddress, guardedAgent, isPublicUnicast } from "@emailsvc/http";
import { messagingTopology, Queues, type Topology } from "@emailsvc/contracts";
import { type BaseDeps, createBaseDeps } from "@emailsvc/runtime";
import type { Env } from "./env";
import type { DeliverDeps } from "./use-cases/deliver-webhook";
import { createFailingReceivers, type FailingReceivers } from "./use-cases/failing-receivers";
import { recordReceiverState } from "./use-cases/record-receiver-state";
import { createSlowReceiverGate, type SlowReceiverGate } from "./use-cases/slow-receivers";
import { createWebhookDestinations } from "./use-cases/webhook-destinations";

export interface Deps extends BaseDeps {
  env: Env;
  deliver: DeliverDeps;
  slowReceivers: SlowReceiverGate;
  failingReceivers: FailingReceivers;
}

/** The webhook queue's retry schedule comes from env (spec 6.3), so tests can scale time down. */
export function webhookTopology(
  env: Pick<Env, "WEBHOOK_RETRY_DELAYS_MS" | "WEBHOOK_MAX_ATTEMPTS" | "WEBHOOK_DEFER_MS">,
): Topology {
  return {
    ...messagingTopology,
    queues: messagingTopology.queues.map((q) =>
      q.name === Queues.webhookDispatcherEvents
        ? // one spare broker attempt: the database's attempt counter decides when a delivery is exhausted
          {
            ...q,
            retry: {
              delaysMs: env.WEBHOOK_RETRY_DELAYS_MS,
              maxAttempts: env.WEBHOOK_MAX_ATTEMPTS + 1,
              deferMs: env.WEBHOOK_DEFER_MS,
            },
          }
        : q,
    ),
  };
}

export async function createDeps(env: Env): Promise<Deps> {
  const base = await createBaseDeps("webhook-dispatcher", env, { topology: webhookTopology(env) });
  const allowAddress = env.WEBHOOK_URL_ALLOW_PRIVATE ? allowAnyAddress : isPublicUnicast;
  const record = recordReceiverState(base.db, base.logger, base.metrics);
  const failingNow = base.metrics.gauge(
    "webhook_endpoints_failing",
    "Webhook receivers (project and mode) failing now, as this process sees them",
  );
  const failingReceivers = createFailingReceivers({
    failAfter: env.WEBHOOK_FAILING_AFTER,
    probeMs: env.WEBHOOK_PROBE_MS,
    onChange: (projectId, isTest, failing, kind) => {
      if (failing) failingNow.inc();
      else failingNow.dec();
      record(projectId, isTest, failing, kind);
    },
  });
  return {
    ...base,
    env,
    deliver: {
      db: base.db,
      logger: base.logger,
      encryptionKey: env.API_KEY_ENCRYPTION_KEY,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      dispatcher: guardedAgent(allowAddress, { connections: 64, keepAliveTimeout: 30_000 }),
      allowAddress,
      destinations: createWebhookDestinations(base.db, env.WEBHOOK_URL_CACHE_MS),
      retryDelaysMs: env.WEBHOOK_RETRY_DELAYS_MS,
      writes: createDeliveryWrites(base.db),
      loadOutbound: createOutboundLoads(base.db),
    },
    slowReceivers: createSlowReceiverGate({
      slowMs: env.WEBHOOK_SLOW_MS,
      slowLimit: env.WEBHOOK_SLOW_RECEIVER_SLOTS,
    }),
    failingReceivers,
  };
}
