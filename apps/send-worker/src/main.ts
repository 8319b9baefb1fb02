import { Queues } from "@emailsvc/contracts";
import { getAccount } from "@emailsvc/provider";
import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { rpcConsumer } from "./consumers/rpc.consumer";
import { bulkSendConsumer, sendConsumer } from "./consumers/send.consumer";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { createSemaphore } from "./infra/semaphore";
import { startReconcileLoop } from "./use-cases/start-reconcile-loop";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
    // One cheap call before the first send opens the provider connection and runs the SDK's request path once:
    // a cold first SendEmail arrived tens of ms late, bunched with the sends after it, and the provider counted
    // 17 in one second. A provider that does not answer delays nothing: sending starts regardless.
    await getAccount(deps.send.ses).catch((err: unknown) =>
      deps.logger.warn({ err }, "provider warm-up call failed; starting anyway"),
    );
    const run = createSemaphore(env.SEND_PREFETCH);
    const send = await deps.broker.consume(sendConsumer(deps.send, run), { prefetch: env.SEND_PREFETCH });
    // The bulk lane (campaigns): its own queue and concurrency, so its backlog never sits before transactional mail.
    const bulk = await deps.broker.consume(
      bulkSendConsumer(deps.send, createSemaphore(env.SEND_BULK_CONCURRENCY)),
      {
        prefetch: env.SEND_BULK_PREFETCH,
      },
    );
    const rpc = await deps.broker.serveRpc(Queues.sendWorkerRpc, rpcConsumer(deps.send), {
      prefetch: env.SEND_PREFETCH,
    });
    // Here, not in a service of its own: the worker is what leaves claims unanswered, it already has the relay
    // that carries the re-send requests, and any number of its replicas may run the loop (SKIP LOCKED).
    const reconcile = startReconcileLoop({
      db: deps.db,
      logger: deps.logger,
      metrics: deps.metrics,
      afterMs: env.SEND_RECONCILE_AFTER_MS,
      intervalMs: env.SEND_RECONCILE_INTERVAL_MS,
      onSettled: () => deps.outbox.kick(),
    });
    return async () => {
      await reconcile.stop();
      await Promise.all([send.close(), bulk.close(), rpc.close()]);
      await deps.outbox.stop();
      deps.redis.disconnect();
    };
  },
});
