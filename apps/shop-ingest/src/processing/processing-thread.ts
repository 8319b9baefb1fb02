import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Counter } from "@emailsvc/observability";
import type { Logger, Metrics } from "@emailsvc/observability";

export type ToWorker = { type: "stop" };
export type ToMain =
  | { type: "ready" }
  | {
      type: "counter";
      name: string;
      help: string;
      labelNames: string[];
      labels: Record<string, string>;
      value: number;
    };

/**
 * Starts `processing-worker` (the consumers and the abandoned-cart loop) in a worker thread and resolves when it
 * consumes. The receiver keeps the main thread's event loop and heap to itself: on bench/shop the consumers'
 * batches and their garbage collections ran between the webhooks being answered. A thread that fails after
 * that ends the process (exit 1), as a crashed service would: the orchestrator restarts it. Returns the
 * function that stops the thread (it finishes its batches and closes its connections first).
 */
export async function startProcessingThread(deps: {
  logger: Logger;
  metrics: Pick<Metrics, "counter">;
}): Promise<() => Promise<void>> {
  // dist/main.js runs dist/processing/processing-worker.js; under tsx (pnpm start, tests) the .ts file, with
  // tsx's require hook registered in the thread first (a worker does not inherit the main thread's loader)
  const ext = path.extname(__filename);
  const file = path.join(__dirname, `processing-worker${ext}`);
  const worker =
    ext === ".ts"
      ? new Worker(
          `require(${JSON.stringify(require.resolve("tsx/cjs/api"))}).register(); require(${JSON.stringify(file)});`,
          { eval: true },
        )
      : new Worker(file);
  const counters = new Map<string, Counter<string>>();
  let stopping = false;
  const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const onError = (err: unknown) => reject(err instanceof Error ? err : new Error(String(err)));
    const onExit = (code: number) =>
      reject(new Error(`the processing thread exited (${code}) before it started`));
    worker.once("error", onError);
    worker.once("exit", onExit);
    worker.on("message", (m: ToMain) => {
      if (m.type === "ready") {
        worker.off("error", onError);
        worker.off("exit", onExit);
        resolve();
      } else if (m.type === "counter") {
        let c = counters.get(m.name);
        if (!c) counters.set(m.name, (c = deps.metrics.counter(m.name, m.help, m.labelNames)));
        c.inc(m.labels, m.value);
      }
    });
  });
  worker.on("error", (err) => {
    deps.logger.fatal({ err }, "the processing thread failed: exiting");
    process.exit(1);
  });
  void exited.then((code) => {
    if (stopping) return;
    deps.logger.fatal({ code }, "the processing thread exited: exiting");
    process.exit(1);
  });
  return async () => {
    stopping = true;
    worker.postMessage({ type: "stop" } satisfies ToWorker);
    await exited;
  };
}
