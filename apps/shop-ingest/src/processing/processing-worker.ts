/**
 * The worker thread main.ts starts for processing (`SHOP_PROCESSING=thread`): the topic consumers and the
 * abandoned-cart loop on an event loop and a heap of their own, with their own PostgreSQL pool, broker connection
 * and outbox relay (for the steps it sends). A batch being applied (rows parsed, payloads validated, statements
 * built) and its garbage collections then never hold up a webhook the receiver is answering on the main thread.
 *
 * Messages: main → worker `stop`; worker → main `ready`, `counter` (its metrics, counted in main's registry, which
 * /metrics serves). An error here ends the thread and main.ts ends the process (the orchestrator restarts it).
 */
import { parentPort } from "node:worker_threads";
import { messagingTopology } from "@emailsvc/contracts";
import { createDb } from "@emailsvc/db";
import { createBroker } from "@emailsvc/messaging";
import { createLogger, type Metrics } from "@emailsvc/observability";
import { createOutbox } from "@emailsvc/runtime";
import { createTemplateCache } from "@emailsvc/sending";
import { readEnv } from "../env";
import type { ToMain, ToWorker } from "./processing-thread";
import { startProcessing } from "./start-processing";

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("processing-worker runs as main.ts's worker thread");
  const send = (m: ToMain) => port.postMessage(m);
  const env = readEnv();
  const logger = createLogger({ service: "shop-ingest", level: env.LOG_LEVEL }).child({
    thread: "processing",
  });
  const db = createDb(env.DATABASE_URL, { max: env.DATABASE_POOL_MAX });
  const broker = createBroker({
    url: env.RABBITMQ_URL,
    logger,
    name: "shop-ingest",
    topology: messagingTopology,
  });
  const outbox = createOutbox({ db, broker, logger });
  // counters are kept by main's registry: each increment is posted there
  const metrics: Pick<Metrics, "counter"> = {
    counter: (name, help, labelNames = []) =>
      ({
        inc: (labels?: Record<string, string> | number, value?: number) =>
          send({
            type: "counter",
            name,
            help,
            labelNames: labelNames as string[],
            labels: typeof labels === "object" ? labels : {},
            value: typeof labels === "number" ? labels : (value ?? 1),
          }),
      }) as unknown as ReturnType<Metrics["counter"]>,
  };
  await broker.ready();
  const stop = await startProcessing(
    { db, broker, logger, metrics, templateCache: createTemplateCache(), kickOutbox: () => outbox.kick() },
    env,
  );
  port.on("message", (m: ToWorker) => {
    if (m.type !== "stop") return;
    void (async () => {
      await stop();
      await outbox.stop();
      await broker.close();
      await db.close();
      // ends this thread only (timers or sockets a library left open would keep it alive)
      process.exit(0);
    })();
  });
  send({ type: "ready" });
}

main().catch((err: unknown) => {
  // rethrown outside the promise: the thread ends with an 'error' event main.ts handles
  setImmediate(() => {
    throw err;
  });
});
