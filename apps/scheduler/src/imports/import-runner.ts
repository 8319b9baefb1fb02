import type { Logger } from "@emailsvc/observability";
import type { RunResult } from "./process-import-job";

export interface ImportRunnerOptions {
  /** Jobs this replica processes at once. */
  concurrency: number;
  /** Period of the sweep for triggered jobs nobody processes. */
  sweepIntervalMs: number;
  run(jobId: string, signal: AbortSignal, onClaimed: () => void): Promise<RunResult>;
  /** Triggered jobs, oldest first. */
  triggered(limit: number): Promise<string[]>;
  logger: Logger;
}

export interface ImportRunner {
  /** A job.import-requested arrived: run it now when there is room (else a later sweep will). */
  wake(jobId: string): Promise<boolean>;
  /** Look for triggered jobs nobody is processing (at start, every interval, and after a run ends). */
  sweep(): Promise<void>;
  /** Stop taking jobs; running ones stop at their next chunk (they stay processing and resume elsewhere). */
  stop(): Promise<void>;
}

/**
 * The scheduler's import work: up to `concurrency` jobs at once, each on its own connection under its advisory
 * lock. The queue's message only wakes it; the sweep makes it robust: a job whose processor was killed, or that
 * arrived while this replica was full, is found again in `processing` with its lock free and resumed.
 */
export function startImportRunner(opts: ImportRunnerOptions): ImportRunner {
  const running = new Map<string, Promise<void>>();
  const controller = new AbortController();
  let stopped = false;
  let sweeping: Promise<void> | null = null;

  /** Starts a run; resolves true once it holds the job, false when it does not (busy elsewhere, finished). */
  function start(jobId: string): Promise<boolean> {
    return new Promise((claimed) => {
      const run = opts
        .run(jobId, controller.signal, () => claimed(true))
        .then(
          (result) => {
            claimed(false);
            if (result !== "busy" && result !== "gone")
              opts.logger.info({ importJobId: jobId, result }, "import run");
            return result;
          },
          (err: unknown) => {
            claimed(false);
            opts.logger.error({ err, importJobId: jobId }, "import run crashed");
            return "retry" as RunResult;
          },
        )
        .then((result) => {
          running.delete(jobId);
          // A slot is free after real work: look for the next job at once (not after busy/gone: no spinning).
          if (!stopped && result !== "busy" && result !== "gone") void runner.sweep();
        });
      running.set(jobId, run);
    });
  }

  const runner: ImportRunner = {
    async wake(jobId) {
      if (stopped || running.has(jobId) || running.size >= opts.concurrency) return false;
      return start(jobId);
    },
    sweep() {
      if (sweeping) return sweeping;
      const pass = (async () => {
        if (stopped || running.size >= opts.concurrency) return;
        const ids = await opts.triggered(50);
        for (const id of ids) {
          if (stopped || running.size >= opts.concurrency) break;
          if (!running.has(id)) await start(id);
        }
      })()
        .catch((err: unknown) => opts.logger.warn({ err }, "import sweep failed"))
        // Cleared after the assignment below, even when the pass ended synchronously.
        .finally(() => {
          if (sweeping === pass) sweeping = null;
        });
      sweeping = pass;
      return pass;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      controller.abort();
      await sweeping;
      await Promise.all(running.values());
    },
  };
  const timer = setInterval(() => void runner.sweep(), opts.sweepIntervalMs);
  void runner.sweep();
  return runner;
}
