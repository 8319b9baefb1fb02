import type { Logger } from "@emailsvc/observability";

export interface GroupWriterOptions<T> {
  /** Writes one batch in one statement; rejects to have the batch tried again. */
  write(items: T[]): Promise<void>;
  logger: Logger;
  /** Items per statement. */
  maxBatch?: number;
  /** Statements in flight at once; while they run, new items gather into the next batch. */
  maxInFlight?: number;
  /** Items held in memory at most (a database outage); past it new items are dropped and logged. */
  maxPending?: number;
  /** Wait before a failed batch is tried again. */
  retryDelayMs?: number;
  /**
   * True for an error that the same items will always meet (PostgreSQL refused their values), not an outage. Such a
   * batch is split in halves and written again at once, down to the one item that is refused: that item is logged
   * and dropped, and everything else is written. Without it, one such item held every later one back for good.
   */
  refused?: (err: unknown) => boolean;
}

export interface GroupWriter<T> {
  add(item: T): void;
  /** Writes everything still held (graceful shutdown), retrying failed batches until `deadlineMs` passes. */
  flush(deadlineMs?: number): Promise<void>;
}

/**
 * Group commit for fire-and-forget writes: the first item is written at once, and items that arrive while up
 * to `maxInFlight` statements run are written together by the next one. Under load one statement carries
 * hundreds of items; when idle an item waits for nothing. A failed batch goes back to the front and is tried
 * again after `retryDelayMs`, so a database restart loses nothing the process still holds. A batch the database
 * refuses for its values (`refused`) is halved until the refused item is alone, and that item alone is dropped.
 */
export function createGroupWriter<T>(opts: GroupWriterOptions<T>): GroupWriter<T> {
  const maxBatch = opts.maxBatch ?? 500;
  const maxInFlight = opts.maxInFlight ?? 2;
  const maxPending = opts.maxPending ?? 100_000;
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  let pending: T[] = [];
  let inFlight = 0;
  let pausedUntil = 0;
  let dropped = 0;
  let refusedCount = 0;
  /** Halves of a refused batch, written before anything pending (a stack: the earlier half on top). */
  const splits: T[][] = [];
  const idle: (() => void)[] = [];

  const settle = () => {
    if (inFlight === 0 && pending.length === 0 && splits.length === 0) idle.splice(0).forEach((r) => r());
  };

  const pump = (): void => {
    while (inFlight < maxInFlight && (splits.length || pending.length) && Date.now() >= pausedUntil) {
      const split = splits.pop();
      const batch = split ?? pending.slice(0, maxBatch);
      if (!split) pending = pending.slice(batch.length);
      inFlight++;
      opts
        .write(batch)
        .catch((err: unknown) => {
          if (opts.refused?.(err)) {
            if (batch.length === 1) {
              refusedCount++;
              opts.logger.error(
                { err, item: batch[0], refused: refusedCount },
                "item refused by the database; dropped",
              );
              return;
            }
            // its halves go back to the front, in order, and are written now: the good ones are not held back
            const half = Math.ceil(batch.length / 2);
            splits.push(batch.slice(half), batch.slice(0, half));
            return;
          }
          opts.logger.error({ err, count: batch.length }, "batch write failed; trying again");
          pending = batch.concat(pending);
          pausedUntil = Date.now() + retryDelayMs;
          setTimeout(pump, retryDelayMs).unref();
        })
        .finally(() => {
          inFlight--;
          pump();
          settle();
        });
    }
  };

  return {
    add(item) {
      if (pending.length >= maxPending) {
        if (dropped++ % 1000 === 0) opts.logger.error({ dropped }, "write backlog full; item dropped");
        return;
      }
      pending.push(item);
      pump();
    },
    async flush(deadlineMs = 10_000) {
      const until = Date.now() + deadlineMs;
      while ((pending.length || splits.length || inFlight) && Date.now() < until) {
        pausedUntil = 0;
        pump();
        await Promise.race([new Promise<void>((r) => idle.push(r)), new Promise((r) => setTimeout(r, 200))]);
      }
    },
  };
}
