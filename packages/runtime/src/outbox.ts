import { createOutboxStore, OUTBOX_HANDOFF_HOLD_MS, type OutboxHandoff } from "@emailsvc/db";
import { type OutboxRelay, startOutboxRelay } from "@emailsvc/messaging";
import type { BaseDeps } from "./base-deps";

/**
 * The transactional outbox of one service: rows written in the same transaction as the state they announce,
 * published with confirms by one relay. Every service that writes outbox rows builds it here, so the set-up, its
 * defaults and the one verb (`kick`: publish now, the commit just wrote rows) are the same everywhere.
 */
export interface Outbox {
  /** Publish soon: a transaction just committed outbox rows (otherwise the relay polls every `intervalMs`). */
  kick(): void;
  /**
   * For hot-path statements: the running relay's intake for rows they commit held for it (`OutboxHandoff`), or
   * null while none runs.
   */
  handoff: OutboxHandoff;
  /** Starts the relay (idempotent). Services whose tests drive the relay themselves start it in main.ts. */
  start(): void;
  /** Stops polling after publishing what it holds; kicks after this are ignored. */
  stop(): Promise<void>;
}

export interface OutboxOptions {
  /** Poll period when nothing kicks (default 1 s). */
  intervalMs?: number;
  /** Rows per relay round (default 500). */
  batchSize?: number;
  /** Start at once (default) or on `start()`. */
  autoStart?: boolean;
}

export function createOutbox(
  base: Pick<BaseDeps, "db" | "broker" | "logger">,
  opts: OutboxOptions = {},
): Outbox {
  let relay: OutboxRelay | undefined;
  const outbox: Outbox = {
    kick: () => relay?.kick(),
    handoff: () => {
      const r = relay;
      return r ? (rows) => r.handoff(rows) : null;
    },
    start() {
      relay ??= startOutboxRelay({
        store: createOutboxStore(base.db.pool),
        broker: base.broker,
        intervalMs: opts.intervalMs ?? 1_000,
        batchSize: opts.batchSize ?? 500,
        handoffHoldMs: OUTBOX_HANDOFF_HOLD_MS,
        logger: base.logger,
      });
    },
    async stop() {
      const r = relay;
      relay = undefined;
      await r?.stop();
    },
  };
  if (opts.autoStart !== false) outbox.start();
  return outbox;
}
