import { contentVariables } from "@emailsvc/content";
import { humanReplyTo, senderDomain } from "@emailsvc/contracts";
import {
  type CampaignRow,
  claimRecipients,
  type ClaimedRecipient,
  type Db,
  deferCampaign,
  domainWarmup,
  guardFigures,
  leadVariables,
  lockNextCampaign,
  markDispatched,
  monthlyQuotaLeft,
  needsConsent,
  type PoolClient,
  recordCycle,
  recordDomainSends,
  recountDispatched,
  stopCampaign,
  timeOrderedUuid,
  withTransaction,
} from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { checkSenderVerified, insertBatch, loadTemplate, type TemplateCache } from "@emailsvc/sending";
import type { ProviderQuota } from "../infra/provider-quota";
import { dayNumber, type LimitState, monthlyLimit, providerDailyLimit, warmupLimit } from "./domain/limits";
import { batchFinished, pace, pacedClock, type PacingInput } from "./domain/pacing";
import { type GuardConfig, guardVerdict } from "./domain/reputation-guard";

export interface CycleDeps {
  db: Db;
  logger: Logger;
  providerQuota: ProviderQuota;
  templateCache: TemplateCache;
  config: {
    cycleSize: number;
    idsPerMessage: number;
    hourMs: number;
    tickMs: number;
    providerRecheckMs: number;
    warmupRamp: readonly number[];
    guard: GuardConfig;
  };
}

export type CycleOutcome =
  | "dispatched" // recipients handed over (or skipped)
  | "waiting" // pacing or the in-flight bound: nothing owed now
  | "rate_limited"
  | "paused" // by the reputation guard
  | "failed";

export interface CycleResult {
  campaignId: string;
  outcome: CycleOutcome;
  queued: number;
  skipped: number;
}

/** Why a claimed recipient is not sent after all (spec 3: suppression and unsubscribe are checked again now). */
function skipReason(r: ClaimedRecipient, emailType: string): string | null {
  if (!r.lead_exists) return "lead deleted";
  if (r.suppressed) return `suppressed: ${r.suppressed}`;
  if (r.subscription === "unsubscribed") return "unsubscribed";
  if (needsConsent(emailType) && r.subscription !== "subscribed") return "not subscribed";
  return null;
}

/**
 * One dispatch cycle of one campaign, in ONE transaction (spec 3, 8): the next campaign due is locked (SKIP LOCKED:
 * replicas take different ones), its sender and template checked, its reputation guard and limits applied, then up
 * to `min(500, budget, pace, limits)` pending recipients are claimed (FOR UPDATE SKIP LOCKED), their variables read
 * from their leads, and their sends created through the shared send model (`insertBatch`: message, activities,
 * quota, outbox) in the same transaction that moves them to `queued`. A crash anywhere rolls all of it back; the
 * next cycle of any replica takes the same recipients again. Resolves null when no campaign is due.
 *
 * `budget`: how many more sends the in-flight bound allows this tick; `inFlight`: campaign sends handed over and
 * not answered yet. `skip`: campaigns this tick already saw.
 */
export async function dispatchCycle(
  deps: CycleDeps,
  budget: number,
  skip: readonly string[],
  inFlight: number,
): Promise<CycleResult | null> {
  // Set once a campaign is locked: from then on a failure (its commit's too) is this campaign's, and the tick
  // goes on with the others; before it (no connection, the lock itself) the whole tick fails.
  let lockedId: string | undefined;
  let result: CycleResult | null;
  try {
    result = await withTransaction(deps.db, async (client) => {
      const campaign = await lockNextCampaign(client, skip);
      if (!campaign) return null;
      lockedId = campaign.id;
      return cycle(deps, client, campaign, budget, inFlight);
    });
  } catch (err) {
    throw lockedId === undefined || err instanceof QuotaRaced ? err : new CycleFailed(lockedId, err);
  }
  // Committed and the connection released: only now are the sends the provider's to count.
  if (result?.queued) deps.providerQuota.handedOver(result.queued);
  return result;
}

async function cycle(
  deps: CycleDeps,
  c: PoolClient,
  campaign: CampaignRow,
  budget: number,
  inFlight: number,
): Promise<CycleResult> {
  const result = (outcome: CycleOutcome, queued = 0, skipped = 0): CycleResult => ({
    campaignId: campaign.id,
    outcome,
    queued,
    skipped,
  });
  const { config } = deps;
  const now = Date.now();

  // The sender and the content, as they are now: a sender no longer verified or a deleted template ends it.
  const sender = await checkSenderVerified(deps.db, campaign.project_id, campaign.from_email);
  if (!sender.verified) {
    await stopCampaign(c, campaign.id, "failed", {
      reason: `the sender ${campaign.from_email} is no longer verified`,
      cause: null,
    });
    return result("failed");
  }
  // A template gives the HTML and text; the subject is the campaign's.
  const template = campaign.template_id
    ? (await loadTemplate(deps, campaign.project_id, { id: campaign.template_id }))?.template
    : undefined;
  const content =
    campaign.template_id === null
      ? { subject: campaign.subject, html: campaign.html ?? "", text: campaign.text }
      : template && { subject: campaign.subject, html: template.html, text: template.text };
  if (!content) {
    await stopCampaign(c, campaign.id, "failed", { reason: "its template was deleted", cause: null });
    return result("failed");
  }

  // The reputation guard, over what it has sent so far.
  if (campaign.dispatched > 0) {
    const verdict = guardVerdict(await guardFigures(c, campaign), campaign.guard_baseline, config.guard);
    if (verdict) {
      await stopCampaign(c, campaign.id, "paused", { reason: verdict.reason, cause: verdict.cause });
      deps.logger.warn({ campaignId: campaign.id, ...verdict }, "campaign paused by the reputation guard");
      return result("paused");
    }
  }

  // The limits: the provider's 24-hour quota, the monthly quota, the domain's warm-up ramp.
  const domain = senderDomain(campaign.from_email);
  const today = dayNumber(now, config.hourMs);
  const warm = await domainWarmup(c, campaign.project_id, domain, today);
  const limits: LimitState[] = [
    providerDailyLimit(await deps.providerQuota.current(), inFlight, now, config.providerRecheckMs),
    monthlyLimit(await monthlyQuotaLeft(c, campaign.project_id, new Date(now)), new Date(now)),
    warmupLimit(warm.ramp ?? config.warmupRamp, warm.firstDay, today, warm.used, domain, config.hourMs),
  ];
  const blocked = limits.find((l) => l.blocked)?.blocked;
  if (blocked) {
    await stopCampaign(c, campaign.id, "rate_limited", blocked);
    deps.logger.info(
      { campaignId: campaign.id, cause: blocked.cause, until: blocked.until },
      "campaign rate limited",
    );
    return result("rate_limited");
  }

  const pacing: PacingInput = {
    now,
    total: campaign.total_recipients,
    dispatched: campaign.dispatched,
    batchSize: campaign.batch_size,
    batchIntervalHours: campaign.batch_interval_hours,
    currentBatch: campaign.current_batch,
    sendOverHours: campaign.send_over_hours,
    startedAt: campaign.started_at?.getTime() ?? null,
    lastDispatchAt: campaign.last_dispatch_at?.getTime() ?? null,
    hourMs: config.hourMs,
    tickMs: config.tickMs,
  };
  const p = pace(pacing);
  const n = Math.min(config.cycleSize, budget, p.budget, ...limits.map((l) => l.left));
  if (n <= 0) {
    if (p.wakeAt !== null) await deferCampaign(c, campaign.id, new Date(p.wakeAt));
    return result("waiting");
  }

  const claimed = await claimRecipients(c, campaign.id, n);
  if (!claimed.length) {
    // the counter said some were pending and none is: set it from the ledger
    await recountDispatched(c, campaign.id);
    return result("waiting");
  }
  const skipped: { id: string; reason: string }[] = [];
  const sendTo: ClaimedRecipient[] = [];
  for (const r of claimed) {
    const reason = skipReason(r, campaign.email_type);
    if (reason) skipped.push({ id: r.id, reason });
    else sendTo.push(r);
  }

  // The bookkeeping first and the accept last: the accept charges the project's quota and total_sent, whose rows
  // the project's own API sends update too; they wait for this commit only as long as the accept's statement.
  await markDispatched(
    c,
    sendTo.map((r) => r.id),
    skipped,
  );
  await recordDomainSends(c, campaign.project_id, domain, today, sendTo.length);
  const taken = claimed.length;
  await recordCycle(c, campaign.id, {
    dispatched: taken,
    currentBatch: p.currentBatch,
    nextDispatchAt:
      campaign.batch_interval_hours && batchFinished(pacing, p, taken)
        ? new Date(now + campaign.batch_interval_hours * config.hourMs)
        : null,
    lastDispatchAt: new Date(pacedClock(pacing, taken)),
  });
  if (sendTo.length) {
    const fromTemplate = campaign.template_id !== null;
    const names = contentVariables(content, fromTemplate);
    const ids = sendTo.map((r) => r.id);
    const inserted = await insertBatch(c, {
      projectId: campaign.project_id,
      batchId: null,
      emailMessageId: timeOrderedUuid(),
      source: "campaign",
      campaignId: campaign.id,
      // spec 4.11: dashboard sends reply to the human sender, not a reply token
      headers: { "Reply-To": humanReplyTo(campaign.from_name, campaign.reply_to ?? campaign.from_email) },
      replyTokens: false,
      isTest: false,
      emailType: campaign.email_type,
      fromEmail: campaign.from_email,
      fromName: campaign.from_name,
      subject: content.subject,
      html: content.html,
      text: content.text,
      templateId: campaign.template_id,
      total: ids.length,
      schedule: null,
      // the ledger row's id is its activity's id: one recipient can never get two activities
      activityIds: ids,
      emails: sendTo.map((r) => r.email),
      data: sendTo.map((r) => leadVariables(r, names)),
      lane: "bulk",
      requests: { idsPerMessage: config.idsPerMessage, causationId: campaign.id },
      counted: true,
      at: new Date(now),
      idempotency: null,
    });
    // The quota was read under this campaign's lock, but another campaign of the project may have used it since:
    // the accept statement's own gate refused, and the transaction is aborted. The caller's next tick finds the
    // quota used up and rate-limits the campaign.
    if (inserted !== "inserted") throw new QuotaRaced(campaign.id);
  }
  return result("dispatched", sendTo.length, skipped.length);
}

/** The monthly quota ran out between the read and the accept (another campaign of the project took it). */
export class QuotaRaced extends Error {
  constructor(readonly campaignId: string) {
    super(`campaign ${campaignId}: the monthly quota ran out during the cycle`);
    this.name = "QuotaRaced";
  }
}

/**
 * A cycle of this campaign failed (a database error, its connection lost): rolled back, nothing of it happened.
 * The tick goes on with the other campaigns; this one is tried again at the next tick.
 */
export class CycleFailed extends Error {
  constructor(
    readonly campaignId: string,
    cause: unknown,
  ) {
    super(
      `campaign ${campaignId}: dispatch cycle failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
    this.name = "CycleFailed";
  }
}
