import type { ProjectId } from "@emailsvc/contracts";
import { connOf, type Db, type DbOrClient, withTransaction } from "./create-db";
import { QUOTA_REFUND_CTES, refundQuota, usagePeriod } from "./quota";

/**
 * Cancels a scheduled send that has not been handed over, with its activities, and gives its live emails back to
 * the quota of the month they were counted in. Null when it was no longer `scheduled` (handed over to the
 * send-worker, or cancelled already): the scheduler's claim locks the same row, so a send is either cancelled or
 * sent, never both. Else the number of activities cancelled.
 */
export async function cancelScheduledSend(
  db: Db,
  projectId: ProjectId,
  scheduledSendId: string,
  countedAt: Date,
): Promise<number | null> {
  return withTransaction(db, async (c) => {
    const up = await c.query(
      "UPDATE scheduled_sends SET status = 'cancelled', cancelled_at = now(), updated_at = now() WHERE id = $1 AND project_id = $2 AND status = 'scheduled'",
      [scheduledSendId, projectId],
    );
    if (!up.rowCount) return null;
    const acts = await c.query<{ is_test: boolean }>(
      "UPDATE activities SET status = 'cancelled', updated_at = now() WHERE project_id = $1 AND scheduled_send_id = $2 AND status = 'scheduled' RETURNING is_test",
      [projectId, scheduledSendId],
    );
    await refundQuota(c, projectId, usagePeriod(countedAt), acts.rows.filter((a) => !a.is_test).length);
    return acts.rowCount ?? 0;
  });
}

/**
 * After a failed synchronous send: the activities still `queued` are cancelled (a late worker never sends an
 * email the client was told failed), and these and the ones the provider refused (`failed`) go back to the
 * quota and total_sent. Not those whose outcome is unknown (a timeout, a crash). `projectId` null: an internal
 * send without a project, counted nowhere.
 */
const CANCEL_UNSENT_SQL = `
WITH c AS (
  UPDATE activities SET status = 'cancelled', failure_reason = $3, updated_at = now()
   WHERE id = ANY($2::uuid[]) AND project_id IS NOT DISTINCT FROM $1::uuid AND status = 'queued'
  RETURNING id
), n AS (
  SELECT count(*)::int AS n FROM (
    SELECT id FROM c UNION
    SELECT id FROM activities WHERE id = ANY($4::uuid[]) AND project_id IS NOT DISTINCT FROM $1::uuid AND status = 'failed'
  ) unsent
), refund AS (
  SELECT $1::uuid AS project_id, $5::text AS period, n.n FROM n WHERE $1::uuid IS NOT NULL
), ${QUOTA_REFUND_CTES}
SELECT 1`;

export async function cancelUnsentSends(
  on: DbOrClient,
  projectId: ProjectId | null,
  sends: { activityIds: readonly string[]; refusedIds: readonly string[]; reason: string; period: string },
): Promise<void> {
  await connOf(on).query(CANCEL_UNSENT_SQL, [
    projectId,
    sends.activityIds,
    sends.reason,
    sends.refusedIds,
    sends.period,
  ]);
}

// --- the dashboard's activity log (issue 45) --------------------------------------------------------------------

export interface ActivityListFilter {
  /** spec 2 and 5: the live view hides test activities, the test view shows only them */
  isTest: boolean;
  statuses?: readonly string[];
  /** exact address, compared lower-case */
  recipient?: string;
  campaignId?: string;
  since?: Date;
  until?: Date;
  /** keyset: the (created_at, id) of the previous page's last row */
  after?: { createdAt: Date; id: string };
  limit: number;
}

export interface ActivityListRow {
  id: string;
  email_message_id: string;
  recipient: string;
  status: string;
  email_type: string;
  campaign_id: string | null;
  batch_id: string | null;
  subject: string;
  from_email: string;
  source: string;
  created_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  opened_first_at: Date | null;
  clicked_first_at: Date | null;
  bounced_at: Date | null;
  failure_reason: string | null;
}

/**
 * One page of a project's activities, newest first, keyset-paged on (created_at, id): a page costs the same at
 * 10 M activities as at 10 k (the (project_id, created_at) index). An address filter reads the (lower(recipient),
 * created_at) index instead: its condition is written only when given, so that a prepared statement's generic plan
 * can use that index (`$4 IS NULL OR …` would keep it to the project's range). Never OFFSET.
 */
export async function listActivities(
  db: DbOrClient,
  projectId: ProjectId,
  f: ActivityListFilter,
): Promise<ActivityListRow[]> {
  const { rows } = await connOf(db).query<ActivityListRow>(
    `SELECT a.id, a.email_message_id, a.recipient, a.status, a.email_type, a.campaign_id, a.batch_id,
            m.subject, m.from_email, m.source, a.created_at, a.sent_at, a.delivered_at, a.opened_first_at,
            a.clicked_first_at, a.bounced_at, a.failure_reason
       FROM activities a JOIN email_messages m ON m.id = a.email_message_id
      WHERE a.project_id = $1 AND a.is_test = $2
        AND ($3::text[] IS NULL OR a.status = ANY($3))
        AND ${f.recipient ? "lower(a.recipient) = lower($4::text)" : "$4::text IS NULL"}
        AND ($5::uuid IS NULL OR a.campaign_id = $5)
        AND ($6::timestamptz IS NULL OR a.created_at >= $6)
        AND ($7::timestamptz IS NULL OR a.created_at <= $7)
        AND ($8::timestamptz IS NULL OR (a.created_at, a.id) < ($8, $9::uuid))
      ORDER BY a.created_at DESC, a.id DESC
      LIMIT $10`,
    [
      projectId,
      f.isTest,
      f.statuses?.length ? f.statuses : null,
      f.recipient ?? null,
      f.campaignId ?? null,
      f.since ?? null,
      f.until ?? null,
      f.after?.createdAt ?? null,
      f.after?.id ?? null,
      f.limit,
    ],
  );
  return rows;
}

export interface ActivityDetail extends ActivityListRow {
  is_test: boolean;
  provider_message_id: string | null;
  html: string;
  text: string | null;
  data: unknown;
}

/** One activity of the project with what was sent, its events (oldest first) and its webhook deliveries. */
export async function findActivityDetail(
  db: DbOrClient,
  projectId: ProjectId,
  activityId: string,
): Promise<{
  activity: ActivityDetail;
  events: { type: string; occurred_at: Date; payload: unknown }[];
  deliveries: {
    id: string;
    event: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    url: string | null;
    created_at: Date;
  }[];
} | null> {
  const conn = connOf(db);
  const { rows } = await conn.query<ActivityDetail>(
    `SELECT a.id, a.email_message_id, a.recipient, a.status, a.email_type, a.campaign_id, a.batch_id, m.subject,
            m.from_email, m.source, a.created_at, a.sent_at, a.delivered_at, a.opened_first_at, a.clicked_first_at,
            a.bounced_at, a.failure_reason, a.is_test, a.provider_message_id, m.html, m.text, a.data
       FROM activities a JOIN email_messages m ON m.id = a.email_message_id
      WHERE a.id = $2 AND a.project_id = $1`,
    [projectId, activityId],
  );
  const activity = rows[0];
  if (!activity) return null;
  const [events, deliveries] = await Promise.all([
    conn.query<{ type: string; occurred_at: Date; payload: unknown }>(
      "SELECT type, occurred_at, payload FROM email_events WHERE activity_id = $1 AND project_id = $2 ORDER BY occurred_at, id",
      [activityId, projectId],
    ),
    conn.query<{
      id: string;
      event: string;
      status: string;
      attempts: number;
      last_status_code: number | null;
      url: string | null;
      created_at: Date;
    }>(
      `SELECT id, event, status, attempts, last_status_code, url, created_at FROM webhook_deliveries
        WHERE project_id = $1 AND created_at >= $3 AND created_at < $3::timestamptz + interval '7 days'
          AND body::jsonb -> 'data' ->> 'activity_id' = $2::text
        ORDER BY created_at LIMIT 50`,
      [projectId, activityId, activity.created_at],
    ),
  ]);
  return { activity, events: events.rows, deliveries: deliveries.rows };
}

export interface RecipientActivityRow {
  id: string;
  status: string;
  subject: string;
  email_type: string;
  campaign_id: string | null;
  is_test: boolean;
  created_at: Date;
}

/**
 * The emails sent to one address (a lead's timeline), newest first, before the (created_at, id) position: the
 * (lower(recipient), created_at) index, then the project's rows of it.
 */
export async function listActivitiesToRecipient(
  db: DbOrClient,
  projectId: ProjectId,
  email: string,
  before: { at: Date; id: string } | undefined,
  limit: number,
): Promise<RecipientActivityRow[]> {
  const { rows } = await connOf(db).query<RecipientActivityRow>(
    `SELECT a.id, a.status, m.subject, a.email_type, a.campaign_id, a.is_test, a.created_at
       FROM activities a JOIN email_messages m ON m.id = a.email_message_id
      WHERE lower(a.recipient) = lower($2::text) AND a.project_id = $1
        AND ($3::timestamptz IS NULL OR (a.created_at, a.id) < ($3, $4::uuid))
      ORDER BY a.created_at DESC, a.id DESC LIMIT $5`,
    [projectId, email, before?.at ?? null, before?.id ?? null, limit],
  );
  return rows;
}
