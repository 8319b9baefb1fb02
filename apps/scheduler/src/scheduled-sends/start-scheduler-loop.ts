import type { Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { dispatchDueSends, nextDueAt, settleHandedOffSends } from "./dispatch-due-sends";

export interface SchedulerLoopOptions {
  db: Db;
  logger: Logger;
  claimedBy: string;
  /** Poll period (spec: 30 s). The loop also wakes at the next due time when that comes sooner. */
  intervalMs: number;
  /** Called after a tick handed work off (the outbox relay's kick). */
  onDispatched?: () => void;
}

export interface SchedulerLoop {
  stop(): Promise<void>;
  /** Run one tick now (tests, and the first tick at start). */
  tick(): Promise<void>;
}

export function startSchedulerLoop(opts: SchedulerLoopOptions): SchedulerLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function tickOnce(): Promise<void> {
    // Drain everything due before sleeping (a backlog larger than one claim is taken in several transactions).
    for (;;) {
      const r = await dispatchDueSends({ db: opts.db, claimedBy: opts.claimedBy });
      if (r.scheduledSends > 0) {
        opts.logger.info(r, "handed due scheduled sends to the send path");
        opts.onDispatched?.();
      }
      if (r.scheduledSends < 100 || stopped) break;
    }
    await settleHandedOffSends(opts.db);
  }

  async function schedule(): Promise<void> {
    if (stopped) return;
    let delay = opts.intervalMs;
    try {
      const next = await nextDueAt(opts.db);
      if (next) delay = Math.max(500, Math.min(delay, next.getTime() - Date.now() + 50));
    } catch (err) {
      opts.logger.warn({ err }, "could not read the next due time");
    }
    if (stopped) return; // stop() may have been called while we were reading the next due time
    timer = setTimeout(() => {
      running = tickOnce()
        .catch((err: unknown) => opts.logger.error({ err }, "scheduler tick failed"))
        .then(schedule);
    }, delay);
  }

  running = tickOnce()
    .catch((err: unknown) => opts.logger.error({ err }, "scheduler tick failed"))
    .then(schedule);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    tick: tickOnce,
  };
}
