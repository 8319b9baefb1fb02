import type { CampaignRow, CampaignStats } from "@emailsvc/db";

/** Spec 4.8's batch figures: `totalBatches` of a batch-mode campaign, 0 without batch mode. */
export const totalBatchesOf = (c: Pick<CampaignRow, "total_recipients" | "batch_size">): number =>
  c.batch_size ? Math.ceil(c.total_recipients / c.batch_size) : 0;

/**
 * A campaign as the admin API shows it: its state with the reason of a pause, a rate limit or a failure, its
 * batch progress under spec 4.8's names (`batchMode`, `currentBatch`, `totalBatches`), its settings, and its
 * stats when read.
 */
export function campaignView(c: CampaignRow, stats?: CampaignStats) {
  const batchMode = c.batch_size !== null;
  return {
    id: c.id,
    project_id: c.project_id,
    name: c.name,
    status: c.status,
    // why it is paused, rate_limited or failed; `status_cause` names the limit or the guard (null: the user)
    status_reason: c.status_reason,
    status_cause: c.status_cause,
    rate_limited_until: c.rate_limited_until?.toISOString() ?? null,
    batchMode,
    currentBatch: batchMode ? c.current_batch : 0,
    totalBatches: totalBatchesOf(c),
    batch_size: c.batch_size,
    batch_interval_hours: c.batch_interval_hours,
    send_over_hours: c.send_over_hours,
    start_at: c.start_at?.toISOString() ?? null,
    subject: c.subject,
    template_id: c.template_id,
    html: c.html,
    text: c.text,
    sender_email: c.from_email,
    sender_name: c.from_name,
    reply_to: c.reply_to,
    email_type: c.email_type,
    audience: c.audience,
    total_recipients: c.total_recipients,
    // leads of the audience left out when the ledger was written, by reason
    excluded: c.excluded,
    dispatched: c.dispatched,
    ...(stats ? { stats } : {}),
    duplicated_from: c.duplicated_from,
    started_at: c.started_at?.toISOString() ?? null,
    finished_at: c.finished_at?.toISOString() ?? null,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}
