import { type Db, reconcileClaims } from "@emailsvc/db";
import { sendRequests } from "@emailsvc/sending";
import type { Logger, Metrics } from "@emailsvc/observability";

export interface ReconcileLoopOptions {
  db: Db;
  logger: Logger;
  metrics: Metrics;
  /**
   * How old an unanswered claim must be to count as never seen by SES (SEND_RECONCILE_AFTER_MS). SES publishes a
   * `Send` event for every message it accepts, and notification-ingest settles the activity with it; this must
   * stay well past how late that notification can arrive, or a send SES did accept is sent a second time.
   */
  afterMs: number;
  /** How often a replica looks (SEND_RECONCILE_INTERVAL_MS). */
  intervalMs: number;
  /** Called after a pass wrote outbox rows (the relay's kick). */
  onSettled?: () => void;
}

export interface ReconcileLoop {
  stop(): Promise<void>;
  /** One full pass now (tests). */
  tick(): Promise<number>;
}

const PASS_LIMIT = 500;

/**
 * Finds the sends a worker claimed and never answered (it died between the claim and recording the provider's
 * answer) and settles them by the project's choice: sent again through the ordinary send path, or reported
 * failed with reason outcome_unknown. Runs in every send-worker replica; the claims are taken with SKIP LOCKED.
 */
export function startReconcileLoop(opts: ReconcileLoopOptions): ReconcileLoop {
  const counter = opts.metrics.counter(
    "send_reconciled_total",
    "Sends claimed and never answered (the worker died), settled by the reconciler: resent or failed",
    ["action"],
  );
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  async function tick(): Promise<number> {
    let total = 0;
    // A backlog larger than one pass (a fleet that died at once) is drained in several transactions.
    for (;;) {
      const { scanned, settled } = await reconcileClaims(opts.db, {
        afterMs: opts.afterMs,
        limit: PASS_LIMIT,
        // sent again on the transactional lane: a claim this old has waited long enough
        resend: (projectId, ids) => sendRequests("transactional", projectId, ids),
      });
      if (settled.length) {
        const resent = settled.filter((s) => s.action === "resent");
        const failed = settled.filter((s) => s.action === "failed");
        if (resent.length) counter.inc({ action: "resent" }, resent.length);
        if (failed.length) counter.inc({ action: "failed" }, failed.length);
        opts.logger.warn(
          {
            resent: resent.map((s) => s.activityId),
            failed: failed.map((s) => s.activityId),
            afterMs: opts.afterMs,
          },
          "reconciled sends claimed and never answered (a worker died before the provider call's answer)",
        );
        opts.onSettled?.();
      }
      total += settled.length;
      if (scanned < PASS_LIMIT || stopped) return total;
    }
  }

  const loop = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .catch((err: unknown) => opts.logger.error({ err }, "send reconciliation pass failed"))
        .then(loop);
    }, opts.intervalMs);
  };
  loop();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    tick,
  };
}
