import { Queues } from "@emailsvc/contracts";
import { getAccount } from "@emailsvc/provider";
import { runService } from "@emailsvc/runtime";
import { createApp } from "./app";
import { rpcConsumer } from "./consumers/rpc.consumer";
import { sendConsumer } from "./consumers/send.consumer";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { createSemaphore } from "./infra/semaphore";

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
    const send = await deps.broker.consume(Queues.sendWorkerSend, sendConsumer(deps.send, run), {
      prefetch: env.SEND_PREFETCH,
    });
    const rpc = await deps.broker.serveRpc(Queues.sendWorkerRpc, rpcConsumer(deps.send), {
      prefetch: env.SEND_PREFETCH,
    });
    return async () => {
      await Promise.all([send.close(), rpc.close()]);
      await deps.relay.stop();
      deps.redis.disconnect();
    };
  },
});
