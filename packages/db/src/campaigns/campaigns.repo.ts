import {
  type CampaignAudience,
  type CampaignStatus,
  isUuid,
  RESUMABLE_CAMPAIGN_STATUSES,
  type ProjectId,
} from "@emailsvc/contracts";
import type { PoolClient } from "pg";
import { connOf, type DbOrClient } from "../create-db";
import { QUOTA_REFUND_CTES } from "../quota";
import { campaignMovableTo } from "./campaign-status";

/** A campaign as the database holds it. */
export interface CampaignRow {
  id: string;
  project_id: ProjectId;
  name: string;
  status: CampaignStatus;
  status_reason: string | null;
  status_cause: string | null;
  rate_limited_until: Date | null;
  subject: string;
  html: string | null;
  text: string | null;
  template_id: string | null;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  email_type: string;
  audience: CampaignAudience;
  start_at: Date | null;
  batch_size: number | null;
  batch_interval_hours: number | null;
  send_over_hours: number | null;
  total_recipients: number;
  excluded: Record<string, number> | null;
  dispatched: number;
  current_batch: number;
  next_dispatch_at: Date | null;
  last_dispatch_at: Date | null;
  duplicated_from: string | null;
  guard_baseline: GuardBaseline | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What the reputation guard had counted when a user resumed a campaign it paused: it judges the sends since. */
export interface GuardBaseline {
  sent: number;
  hardBounced: number;
  complained: number;
}

/** The fields a campaign is written with (and rewritten with while it has not started). */
export interface CampaignContent {
  name: string;
  subject: string;
  html: string | null;
  text: string | null;
  templateId: string | null;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  emailType: string;
  audience: CampaignAudience;
  startAt: Date | null;
  batchSize: number | null;
  batchIntervalHours: number | null;
  sendOverHours: number | null;
}

const CONTENT_COLUMNS = `name, subject, html, text, template_id, from_email, from_name, reply_to, email_type, audience,
  start_at, batch_size, batch_interval_hours, send_over_hours`;
const contentValues = (c: CampaignContent) => [
  c.name,
  c.subject,
  c.html,
  c.text,
  c.templateId,
  c.fromEmail,
  c.fromName,
  c.replyTo,
  c.emailType,
  JSON.stringify(c.audience),
  c.startAt,
  c.batchSize,
  c.batchIntervalHours,
  c.sendOverHours,
];

/** A new campaign, `initializing`: campaign-dispatcher writes its ledger and makes it `pending`. */
export async function insertCampaign(
  q: DbOrClient,
  projectId: ProjectId,
  id: string,
  c: CampaignContent,
  duplicatedFrom: string | null = null,
): Promise<CampaignRow> {
  const { rows } = await connOf(q).query<CampaignRow>(
    `INSERT INTO campaigns (id, project_id, ${CONTENT_COLUMNS}, duplicated_from, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16, $17, 'initializing')
     RETURNING *`,
    [id, projectId, ...contentValues(c), duplicatedFrom],
  );
  return rows[0]!;
}

/** The project's campaign `id`; undefined for a malformed id or another project's campaign. */
export async function findCampaign(
  q: DbOrClient,
  projectId: ProjectId,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<CampaignRow | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await connOf(q).query<CampaignRow>(
    `SELECT * FROM campaigns WHERE project_id = $1 AND id = $2${opts.forUpdate ? " FOR UPDATE" : ""}`,
    [projectId, id],
  );
  return rows[0];
}

/**
 * A campaign by id alone, for the internal trigger (spec 4.8 names no project): the platform acts on it, not a
 * tenant. Locked when `forUpdate` (waits for a dispatch cycle holding it).
 */
export async function findCampaignById(
  q: DbOrClient,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<CampaignRow | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await connOf(q).query<CampaignRow>(
    `SELECT * FROM campaigns WHERE id = $1${opts.forUpdate ? " FOR UPDATE" : ""}`,
    [id],
  );
  return rows[0];
}

/** The project's campaigns, newest first. */
export async function listCampaigns(
  q: DbOrClient,
  projectId: ProjectId,
  opts: { status?: string; limit?: number } = {},
): Promise<CampaignRow[]> {
  const { rows } = await connOf(q).query<CampaignRow>(
    `SELECT * FROM campaigns WHERE project_id = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [projectId, opts.status ?? null, opts.limit ?? 100],
  );
  return rows;
}

/**
 * Rewrites a campaign that has not started (`pending`, nothing dispatched): its content, and when `rewriteLedger`
 * its ledger is dropped and the campaign goes back to `initializing` for campaign-dispatcher to write it again
 * (the audience, the email type or the sender changed). Undefined when it has started meanwhile.
 */
export async function updateUnstartedCampaign(
  c: PoolClient,
  projectId: ProjectId,
  id: string,
  content: CampaignContent,
  rewriteLedger: boolean,
): Promise<CampaignRow | undefined> {
  const { rows } = await c.query<CampaignRow>(
    `UPDATE campaigns SET (${CONTENT_COLUMNS}) = ($3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16),
            status = CASE WHEN $17 THEN 'initializing' ELSE status END,
            total_recipients = CASE WHEN $17 THEN 0 ELSE total_recipients END,
            excluded = CASE WHEN $17 THEN NULL ELSE excluded END,
            updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status IN ('pending', 'initializing') AND dispatched = 0
      RETURNING *`,
    [projectId, id, ...contentValues(content), rewriteLedger],
  );
  if (rows[0] && rewriteLedger) await c.query("DELETE FROM campaign_recipients WHERE campaign_id = $1", [id]);
  return rows[0];
}

/** pending / processing / rate_limited → paused by the user. Undefined when it was in another state. */
export async function pauseCampaign(
  q: DbOrClient,
  projectId: ProjectId,
  id: string,
  reason = "paused by the user",
): Promise<CampaignRow | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await connOf(q).query<CampaignRow>(
    `UPDATE campaigns SET status = 'paused', status_reason = $3, status_cause = NULL, rate_limited_until = NULL,
            updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status IN ${campaignMovableTo("paused")}
      RETURNING *`,
    [projectId, id, reason],
  );
  return rows[0];
}

/**
 * Cancels a campaign: its pending recipients become `cancelled` and are never sent, and the sends it handed
 * over that no send-worker has claimed yet (`queued` activities) are cancelled too and given back to the quota;
 * claimed ones finish. One transaction, with the campaign row locked (a dispatch cycle holding it is waited
 * for), so no recipient is dispatched after the cancel. Undefined when it had already ended.
 */
export async function cancelCampaign(
  c: PoolClient,
  projectId: ProjectId,
  id: string,
): Promise<{ campaign: CampaignRow; cancelledRecipients: number; cancelledSends: number } | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await c.query<CampaignRow>(
    `UPDATE campaigns SET status = 'cancelled', status_reason = 'cancelled by the user', status_cause = NULL,
            rate_limited_until = NULL, finished_at = now(), updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status IN ${campaignMovableTo("cancelled")}
      RETURNING *`,
    [projectId, id],
  );
  const campaign = rows[0];
  if (!campaign) return undefined;
  const pending = await c.query(
    `UPDATE campaign_recipients SET status = 'cancelled', reason = 'campaign cancelled', updated_at = now()
      WHERE campaign_id = $1 AND status = 'pending'`,
    [id],
  );
  // The trigger on activities moves their ledger rows to `cancelled` too.
  const sends = await c.query<{ n: number }>(
    `WITH c AS (
       UPDATE activities a SET status = 'cancelled', failure_reason = 'campaign cancelled', updated_at = now()
         FROM campaign_recipients r
        WHERE r.campaign_id = $2 AND r.status = 'queued' AND a.id = r.id AND a.status = 'queued'
        RETURNING a.project_id, a.is_test, a.email_message_id
     ), refund AS (
       SELECT c.project_id, to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS period, count(*)::int AS n
         FROM c JOIN email_messages m ON m.id = c.email_message_id
        WHERE NOT c.is_test AND c.project_id = $1
        GROUP BY 1, 2
     ), ${QUOTA_REFUND_CTES}
     SELECT count(*)::int AS n FROM c`,
    [projectId, id],
  );
  return { campaign, cancelledRecipients: pending.rowCount ?? 0, cancelledSends: sends.rows[0]?.n ?? 0 };
}

export type CampaignTriggerOutcome =
  | { kind: "not_found" }
  | { kind: "not_resumable"; campaign: CampaignRow }
  | { kind: "triggered"; campaign: CampaignRow; previousStatus: CampaignStatus };

/**
 * Spec 4.8's trigger (and the admin API's resume): starts a `pending` campaign now (whatever its start time),
 * resumes a `paused` or `rate_limited` one, and leaves a `processing` one as it is (the caller then runs a cycle).
 * A campaign the reputation guard paused is resumed with the guard's counts so far as its baseline: it then judges
 * the sends after the resume. Two triggers at once queue on the row lock; the second finds it `processing`.
 */
export async function triggerCampaign(
  c: PoolClient,
  id: string,
  guardBaseline: (campaign: CampaignRow) => Promise<GuardBaseline>,
  projectId?: ProjectId,
): Promise<CampaignTriggerOutcome> {
  const campaign = projectId
    ? await findCampaign(c, projectId, id, { forUpdate: true })
    : await findCampaignById(c, id, { forUpdate: true });
  if (!campaign) return { kind: "not_found" };
  const previousStatus = campaign.status;
  if (!(RESUMABLE_CAMPAIGN_STATUSES as readonly string[]).includes(previousStatus))
    return { kind: "not_resumable", campaign };
  if (previousStatus === "processing") return { kind: "triggered", campaign, previousStatus };
  const baseline =
    previousStatus === "paused" && campaign.status_cause?.startsWith("reputation_")
      ? await guardBaseline(campaign)
      : campaign.guard_baseline;
  const { rows } = await c.query<CampaignRow>(
    `UPDATE campaigns SET status = 'processing', status_reason = NULL, status_cause = NULL, rate_limited_until = NULL,
            started_at = COALESCE(started_at, now()), next_dispatch_at = NULL, guard_baseline = $2::jsonb,
            -- pacing counts from now: the time spent paused is not owed as a burst
            last_dispatch_at = CASE WHEN last_dispatch_at IS NULL THEN NULL ELSE now() END,
            updated_at = now()
      WHERE id = $1 RETURNING *`,
    [id, baseline ? JSON.stringify(baseline) : null],
  );
  return { kind: "triggered", campaign: rows[0]!, previousStatus };
}

/** A recipient of the ledger, as the admin API lists it. */
export interface CampaignRecipientRow {
  id: string;
  lead_id: string;
  email: string;
  status: string;
  reason: string | null;
  dispatched_at: Date | null;
  updated_at: Date | null;
}

/** The campaign's recipients in ledger order, optionally of one status, after `after` (keyset paging). */
export async function listCampaignRecipients(
  q: DbOrClient,
  projectId: ProjectId,
  campaignId: string,
  opts: { status?: string; after?: string; limit?: number } = {},
): Promise<CampaignRecipientRow[]> {
  const { rows } = await connOf(q).query<CampaignRecipientRow>(
    `SELECT id, lead_id, email, status, reason, dispatched_at, updated_at FROM campaign_recipients
      WHERE project_id = $1 AND campaign_id = $2 AND ($3::text IS NULL OR status = $3)
        AND ($4::uuid IS NULL OR id > $4::uuid)
      ORDER BY id LIMIT $5`,
    [projectId, campaignId, opts.status ?? null, opts.after ?? null, opts.limit ?? 100],
  );
  return rows;
}
