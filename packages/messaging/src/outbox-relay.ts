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
  /** Rows handed over (`OutboxRelay.handoff`) and published: removed. */
  remove(ids: string[]): Promise<void>;
  /** Rows handed over whose publish failed: due again soon, for the poll. */
  release(ids: string[], error: unknown): Promise<void>;
}

export interface OutboxRelayOptions {
  store: OutboxStore;
  broker: { publishMany(requests: readonly PublishRequest[]): Promise<void> };
  /** Sleep between passes when the last batch was not full. */
  intervalMs: number;
  batchSize: number;
  /**
   * How long handed rows are held from the poll (the writer's statement set their `available_at` so far ahead):
   * a handed row not published 1 s before its hold ends is left to the poll, which may take it then. Without it
   * the relay takes no hand-overs: handed rows are left to the poll.
   */
  handoffHoldMs?: number;
  logger?: MessagingLogger;
}

export interface OutboxRelay {
  /** Run a pass now (call right after committing outbox rows) instead of waiting for the interval. */
  kick(): void;
  /**
   * Rows just committed held for this relay (out of the poll's reach for `handoffHoldMs`): published at once and
   * then removed, without the poll's lease statement. Ignored once stopping (the poll publishes them later).
   */
  handoff(rows: readonly OutboxRecord[]): void;
  /** Finishes the current pass, then stops. */
  stop(): Promise<void>;
}

/** How long published handed-over rows wait to be deleted together (a full batch goes at once). */
const REMOVE_AFTER_MS = 100;
/** A handed-over row is not published this close to the end of its hold: the poll may take it then. */
const HOLD_MARGIN_MS = 1000;

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

  let handed: { row: OutboxRecord; until: number }[] = [];

  /** Publishes the handed rows still inside their hold, a batch at a time; a failed batch goes back to the poll. */
  const publishHanded = async (): Promise<void> => {
    while (handed.length) {
      const take = handed.slice(0, opts.batchSize);
      handed = handed.slice(take.length);
      const now = Date.now();
      const rows = take.filter((h) => h.until - HOLD_MARGIN_MS > now).map((h) => h.row);
      if (!rows.length) continue;
      const ids = rows.map((r) => r.id);
      try {
        await publish(rows);
      } catch (err) {
        logger.error(errorFields(err), "publishing handed-over outbox rows failed; the poll retries them");
        await opts.store.release(ids, err).catch(() => undefined);
        continue;
      }
      published.push(...ids);
      if (published.length >= opts.batchSize) await removePublished();
      else removeTimer ??= setTimeout(() => void removePublished(), REMOVE_AFTER_MS);
      logger.debug({ count: rows.length }, "outbox rows published");
    }
  };

  // Published handed rows are deleted together, a batch or REMOVE_AFTER_MS later, not one statement per hand-over:
  // at a low rate each send was handed alone and cost a DELETE of its own. A process that dies before the delete
  // leaves those rows to the poll once their hold ends: published again (consumers dedupe on envelope.id).
  let published: string[] = [];
  let removeTimer: NodeJS.Timeout | undefined;
  const removePublished = async (): Promise<void> => {
    clearTimeout(removeTimer);
    removeTimer = undefined;
    const ids = published;
    published = [];
    if (!ids.length) return;
    try {
      await opts.store.remove(ids);
    } catch (err) {
      // published but still stored: the poll publishes them again when their hold ends (consumers dedupe)
      logger.error(errorFields(err), "removing published outbox rows failed");
    }
  };

  const loop = async (): Promise<void> => {
    let pollAt = 0;
    while (!stopped) {
      await publishHanded();
      if (stopped) break;
      // A full batch means more rows are probably waiting; a kick means new rows committed due at once.
      if (kicked || Date.now() >= pollAt) {
        kicked = false;
        let full = false;
        try {
          const n = await opts.store.relayBatch(opts.batchSize, publish);
          if (n > 0) logger.debug({ count: n }, "outbox rows published");
          full = n >= opts.batchSize;
        } catch (err) {
          logger.error(errorFields(err), "outbox relay pass failed; retrying after the interval");
        }
        pollAt = full ? 0 : Date.now() + opts.intervalMs;
        if (full) continue;
      }
      if (stopped || kicked || handed.length) continue;
      await sleep(Math.max(0, pollAt - Date.now()));
    }
    // what was handed over before the stop is published now if it can be; otherwise the poll takes it later
    await publishHanded();
    await removePublished();
  };
  const running = loop();

  return {
    kick() {
      kicked = true;
      wake?.();
    },
    handoff(rows) {
      if (stopped || !rows.length || opts.handoffHoldMs === undefined) return;
      const until = Date.now() + opts.handoffHoldMs;
      for (const row of rows) handed.push({ row, until });
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
