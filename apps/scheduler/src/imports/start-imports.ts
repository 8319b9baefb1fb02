import { findTriggeredImportJobs } from "@emailsvc/db";
import { objectSource } from "@emailsvc/provider";
import type { Deps } from "../deps";
import type { Env } from "../env";
import { importJobConsumer } from "./import-job.consumer";
import { type ImportRunner, startImportRunner } from "./import-runner";
import { processImportJob } from "./process-import-job";
import { fullGc } from "../infra/full-gc";

/** The import runner and its queue consumer; resolves with the function that stops both. */
export async function startImports(
  deps: Deps,
  env: Env,
): Promise<{ runner: ImportRunner; stop(): Promise<void> }> {
  const collectGarbage = fullGc();
  const runner = startImportRunner({
    concurrency: env.IMPORT_CONCURRENCY,
    sweepIntervalMs: env.IMPORT_SWEEP_INTERVAL_MS,
    logger: deps.logger,
    triggered: (limit) => findTriggeredImportJobs(deps.db, limit),
    run: (jobId, signal, onClaimed) =>
      processImportJob(
        {
          db: deps.db,
          logger: deps.logger,
          openSource: (key) => objectSource(deps.importsS3, env.IMPORTS_BUCKET, key),
          chunkRows: env.IMPORT_CHUNK_ROWS,
          parallelChunks: env.IMPORT_PARALLEL_CHUNKS,
          collectGarbage,
          maxAttempts: env.IMPORT_MAX_ATTEMPTS,
        },
        jobId,
        signal,
        onClaimed,
      ),
  });
  const consumer = await deps.broker.consume(importJobConsumer(runner), { prefetch: 10 });
  return {
    runner,
    async stop() {
      await consumer.close();
      await runner.stop();
    },
  };
}
