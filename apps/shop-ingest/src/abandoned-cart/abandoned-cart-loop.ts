import { claimDueSteps, type Db } from "@emailsvc/db";
import type { Logger, Metrics } from "@emailsvc/observability";
import type { TemplateCache } from "@emailsvc/sending";
import { sendAbandonedStep } from "./send-abandoned-step";

export interface AbandonedCartLoop {
  /** Claims and handles what is due now (tests call it directly); resolves with the number of steps handled. */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Every `intervalMs`, claims the due abandoned-cart steps (FOR UPDATE SKIP LOCKED, so replicas never take one step
 * twice) and handles each: stop, skip or send. The timers are rows, so they survive restarts; a replica killed
 * mid-send leaves its claims to expire and be taken again, and the step's fixed message id keeps its send single.
 */
export function startAbandonedCartLoop(opts: {
  db: Db;
  templateCache: TemplateCache;
  logger: Logger;
  metrics?: Pick<Metrics, "counter">;
  intervalMs: number;
  batch: number;
  claimSeconds: number;
  unitSeconds: number;
  onSent?: () => void;
  /** Tick once at start (default), or only after the first interval / when `tick()` is called. */
  tickAtStart?: boolean;
}): AbandonedCartLoop {
  const counted = opts.metrics?.counter("abandoned_cart_steps_total", "Abandoned-cart steps handled", [
    "outcome",
  ]);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  const tick = async (): Promise<number> => {
    let handled = 0;
    for (;;) {
      const due = await claimDueSteps(opts.db, opts.batch, opts.claimSeconds);
      let sent = 0;
      for (const step of due) {
        const outcome = await sendAbandonedStep(
          {
            db: opts.db,
            templateCache: opts.templateCache,
            logger: opts.logger,
            unitSeconds: opts.unitSeconds,
          },
          step,
        );
        counted?.inc({ outcome });
        if (outcome === "sent") sent++;
      }
      if (sent) opts.onSent?.();
      handled += due.length;
      if (due.length < opts.batch || stopped) return handled;
    }
  };

  const loop = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .catch((err: unknown) => opts.logger.error({ err }, "abandoned-cart tick failed"))
        .then(loop);
    }, opts.intervalMs);
  };
  if (opts.tickAtStart === false) loop();
  else
    running = tick()
      .catch((err: unknown) => opts.logger.error({ err }, "abandoned-cart tick failed"))
      .then(loop);

  return {
    tick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
