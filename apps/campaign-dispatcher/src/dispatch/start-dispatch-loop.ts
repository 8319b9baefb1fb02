import { campaignSendsInFlight, materialiseNextCampaign, settleFinishedCampaigns } from "@emailsvc/db";
import type { Metrics } from "@emailsvc/observability";
import { CycleFailed, type CycleDeps, dispatchCycle, QuotaRaced } from "./dispatch-cycle";

export interface DispatchLoopOptions extends CycleDeps {
  /** Spec 8: every 5 s; a kick (trigger, a new campaign) runs a tick at once. */
  intervalMs: number;
  /** Most campaign sends in flight (handed over, not yet answered) at once: what the rate drains in a few cycles. */
  maxInFlight: number;
  /** Called after a tick that wrote outbox rows (the relay's kick). */
  onDispatched: () => void;
  metrics?: Metrics;
}

export interface DispatchLoop {
  /** Run a tick now (after the one running, if any). */
  kick(): void;
  /** One tick, awaited (tests). */
  tick(): Promise<TickResult>;
  stop(): Promise<void>;
}

export interface TickResult {
  materialised: number;
  queued: number;
  skipped: number;
  settled: number;
}

/**
 * The dispatcher's loop, in every replica: each tick writes the ledgers of new campaigns, then runs dispatch
 * cycles (one campaign and at most 500 recipients each) until the in-flight bound is reached or no campaign is
 * due, then ends the campaigns with nothing left. Replicas share the work through the row locks (SKIP LOCKED).
 */
export function startDispatchLoop(opts: DispatchLoopOptions): DispatchLoop {
  const cycleSeconds = opts.metrics?.histogram(
    "campaign_dispatch_cycle_seconds",
    "One dispatch cycle (one campaign, at most 500 recipients: claim, variables, accept, outbox), by outcome",
    ["outcome"],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  const recipients = opts.metrics?.counter(
    "campaign_recipients_dispatched_total",
    "Campaign recipients taken out of pending: queued (handed to the send model) or skipped",
    ["result"],
  );
  const inFlightGauge = opts.metrics?.gauge(
    "campaign_sends_in_flight",
    "Campaign sends handed over and not yet answered, at the start of this replica's last tick",
  );
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;
  let again = false;

  async function tick(): Promise<TickResult> {
    const out: TickResult = { materialised: 0, queued: 0, skipped: 0, settled: 0 };
    // One campaign whose ledger cannot be written (it is logged and tried again next tick) holds up no other.
    const failed: string[] = [];
    for (;;) {
      let m;
      try {
        m = await materialiseNextCampaign(opts.db, failed);
      } catch (err) {
        const id = (err as { campaignId?: string }).campaignId;
        opts.logger.error({ err, campaignId: id }, "writing a campaign's recipients failed");
        if (!id) break;
        failed.push(id);
        continue;
      }
      if (!m || stopped) break;
      out.materialised++;
      opts.logger.info(
        { campaignId: m.campaign.id, recipients: m.inserted, excluded: m.counts.excluded },
        "campaign recipients written",
      );
    }
    const inFlight = await campaignSendsInFlight(opts.db);
    inFlightGauge?.set(inFlight);
    let budget = opts.maxInFlight - inFlight;
    const seen: string[] = [];
    while (budget > 0 && !stopped) {
      let r;
      const endTimer = cycleSeconds?.startTimer();
      try {
        r = await dispatchCycle(opts, budget, seen, opts.maxInFlight - budget);
        if (r) endTimer?.({ outcome: r.outcome });
      } catch (err) {
        if (err instanceof QuotaRaced) {
          opts.logger.info({ campaignId: err.campaignId }, "monthly quota ran out during a cycle");
        } else if (err instanceof CycleFailed) {
          opts.logger.error(
            { err: err.cause, campaignId: err.campaignId },
            "dispatch cycle failed; tried again next tick",
          );
        } else throw err;
        seen.push(err.campaignId);
        continue;
      }
      if (!r) break;
      if (r.queued + r.skipped === 0) seen.push(r.campaignId);
      budget -= r.queued;
      out.queued += r.queued;
      out.skipped += r.skipped;
      recipients?.inc({ result: "queued" }, r.queued);
      recipients?.inc({ result: "skipped" }, r.skipped);
      if (r.queued) opts.onDispatched();
    }
    out.settled = (await settleFinishedCampaigns(opts.db)).length;
    if (out.queued || out.skipped || out.settled || out.materialised) opts.logger.debug(out, "dispatch tick");
    return out;
  }

  function run(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    running = tick()
      .catch((err: unknown) => opts.logger.error({ err }, "dispatch tick failed"))
      .finally(() => {
        running = null;
        if (stopped) return;
        if (again) {
          again = false;
          run();
        } else timer = setTimeout(run, opts.intervalMs);
      });
  }

  run();
  return {
    kick: run,
    tick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
