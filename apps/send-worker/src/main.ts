import { Queues } from "@emailsvc/contracts";
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
