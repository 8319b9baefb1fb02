import { errorFields, silentLogger, type MessagingLogger } from "./logger";
import type { PublishRequest } from "./publisher";

/** One row of the transactional outbox; `payload` is the envelope written in the same transaction as the state. */
export interface OutboxRecord {
  id: string;
  exchange: string;
  routingKey: string;
  payload: unknown;
  headers?: Record<string, unknown> | null;
}

/**
 * Implemented by @emailsvc/db. `relayBatch` locks up to `limit` unpublished rows (skipping rows another relay
 * holds), calls `publish` with them, marks them published only if `publish` resolves, and returns how many
 * rows it handed over. A throw from `publish` leaves the rows for the next pass.
 */
export interface OutboxStore {
  relayBatch(limit: number, publish: (rows: OutboxRecord[]) => Promise<void>): Promise<number>;
}

export interface OutboxRelayOptions {
  store: OutboxStore;
  broker: { publishMany(requests: readonly PublishRequest[]): Promise<void> };
  /** Sleep between passes when the last batch was not full. */
  intervalMs: number;
  batchSize: number;
  /**
   * After a kick, wait this long before leasing, so the rows other requests commit meanwhile go out in the same
   * pass (default 5 ms). Under load every committed send or notification kicks; without the wait each pass took
   * a handful of rows and the lease and delete statements outnumbered the work.
   */
  lingerMs?: number;
  logger?: MessagingLogger;
}

export interface OutboxRelay {
  /** Run a pass now (call right after committing outbox rows) instead of waiting for the interval. */
  kick(): void;
  /** Finishes the current pass, then stops. */
  stop(): Promise<void>;
}

/**
 * Publishes committed outbox rows. A row is marked published in the same transaction that locked it, after the
 * broker confirmed it, so a crash anywhere means the row is published again later: delivery is at-least-once,
 * and consumers dedupe on `envelope.id`.
 */
export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const logger = opts.logger ?? silentLogger;
  let stopped = false;
  let kicked = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const publish = (rows: OutboxRecord[]): Promise<void> =>
    opts.broker.publishMany(
      rows.map((r) => ({
        exchange: r.exchange,
        routingKey: r.routingKey,
        envelope: r.payload,
        headers: { ...(r.headers ?? {}), "x-outbox-id": r.id },
      })),
    );

  const sleep = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    }).then(() => {
      clearTimeout(timer);
      wake = undefined;
    });

  const lingerMs = opts.lingerMs ?? 5;
  const linger = (): Promise<void> =>
    lingerMs > 0 && !stopped ? new Promise((resolve) => setTimeout(resolve, lingerMs)) : Promise.resolve();

  const loop = async (): Promise<void> => {
    while (!stopped) {
      kicked = false;
      let full = false;
      try {
        const n = await opts.store.relayBatch(opts.batchSize, publish);
        if (n > 0) logger.debug({ count: n }, "outbox rows published");
        full = n >= opts.batchSize;
      } catch (err) {
        logger.error(errorFields(err), "outbox relay pass failed; retrying after the interval");
      }
      // A full batch means more rows are probably waiting; a kick during the pass means new rows committed.
      if (stopped || full) continue;
      if (!kicked) await sleep(opts.intervalMs);
      // Woken by a kick (during the pass or the sleep): gather what commits in the next few ms as well.
      if (kicked) await linger();
    }
  };
  const running = loop();

  return {
    kick() {
      kicked = true;
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
