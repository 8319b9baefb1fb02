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
 * holds), calls `publish` with them, removes them only if `publish` resolves, and returns how many
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
  logger?: MessagingLogger;
}

export interface OutboxRelay {
  /** Run a pass now (call right after committing outbox rows) instead of waiting for the interval. */
  kick(): void;
  /** Finishes the current pass, then stops. */
  stop(): Promise<void>;
}

/**
 * Publishes committed outbox rows. A row is removed only after the broker confirmed it, so a crash anywhere means
 * the row is published again later: delivery is at-least-once, and consumers dedupe on `envelope.id`.
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
      if (stopped || full || kicked) continue;
      await sleep(opts.intervalMs);
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
