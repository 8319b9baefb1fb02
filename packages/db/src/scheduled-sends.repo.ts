import { senderAddressForms, senderDomain, type ProjectId } from "@emailsvc/contracts";
import type { PoolClient } from "pg";
import { connOf, type Db, type DbOrClient } from "./create-db";
import { QUOTA_REFUND_CTES } from "./quota";
import { senderVerifiedSql } from "./sender-verified-sql";

// The scheduled sends aggregate (spec 4.5): what the scheduler's hand-over runs, each inside its transaction.

/**
 * What cancelled activities (`c`: project_id, is_test, scheduled_send_id) give back, as a cancel of the send
 * does: the live quota of the month the send was counted in, and the project's total_sent.
 */
const REFUND_CTES = `refund AS (
  SELECT c.project_id, to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS period, count(*)::int AS n
    FROM c JOIN scheduled_sends s ON s.id = c.scheduled_send_id
   WHERE NOT c.is_test
   GROUP BY 1, 2
), ${QUOTA_REFUND_CTES}`;

/**
 * Spec 1.7: "Emails to suppressed recipients (bounced or unsubscribed) are skipped." A scheduled send was checked
 * when it was accepted, possibly days ago; a recipient who bounced, complained or unsubscribed since is cancelled
 * here, with the reason, and given back to the quota.
 */
const CANCEL_SUPPRESSED_SQL = `
WITH c AS (
  UPDATE activities a SET status = 'cancelled', failure_reason = 'recipient suppressed: ' || x.reason, updated_at = now()
    FROM suppressions x
   WHERE a.scheduled_send_id = ANY($1::uuid[]) AND a.status = 'scheduled'
     AND x.project_id = a.project_id AND x.email = lower(a.recipient)
  RETURNING a.project_id, a.is_test, a.scheduled_send_id
), ${REFUND_CTES}
SELECT count(*)::int AS n FROM c`;

/**
 * The copies of the claimed sends' messages without the addresses suppressed since (as an accept drops them):
 * the send-worker gives cc and bcc to the first recipient it sends.
 */
const DROP_SUPPRESSED_COPIES_SQL = `
UPDATE email_messages m
   SET cc = ARRAY(SELECT c FROM unnest(m.cc) c WHERE NOT EXISTS
                  (SELECT 1 FROM suppressions x WHERE x.project_id = m.project_id AND x.email = lower(c))),
       bcc = ARRAY(SELECT b FROM unnest(m.bcc) b WHERE NOT EXISTS
                  (SELECT 1 FROM suppressions x WHERE x.project_id = m.project_id AND x.email = lower(b)))
 WHERE m.id IN (SELECT DISTINCT email_message_id FROM activities
                 WHERE scheduled_send_id = ANY($1::uuid[]) AND status = 'scheduled')
   AND m.project_id IS NOT NULL AND cardinality(m.cc) + cardinality(m.bcc) > 0
   AND EXISTS (SELECT 1 FROM suppressions x
                WHERE x.project_id = m.project_id AND x.email = ANY(ARRAY(SELECT lower(e) FROM unnest(m.cc || m.bcc) e)))`;

/** Every activity of sends ($1) whose sender ($2) is no longer verified: cancelled, with why, and given back. */
const CANCEL_UNVERIFIED_SQL = `
WITH c AS (
  UPDATE activities a SET status = 'cancelled', failure_reason = 'sender no longer verified: ' || u.from_email,
         updated_at = now()
    FROM unnest($1::uuid[], $2::text[]) AS u(id, from_email)
   WHERE a.scheduled_send_id = u.id AND a.status = 'scheduled'
  RETURNING a.project_id, a.is_test, a.scheduled_send_id
), ${REFUND_CTES}
SELECT count(*)::int AS n FROM c`;

/** The claimed sends (with a project) and their sender, one row per distinct sender of a send. */
const SENDERS_SQL = `
SELECT DISTINCT a.scheduled_send_id AS id, a.project_id, m.from_email
  FROM activities a JOIN email_messages m ON m.id = a.email_message_id
 WHERE a.scheduled_send_id = ANY($1::uuid[]) AND a.status = 'scheduled' AND a.project_id IS NOT NULL`;

/** Of the given (send, project, sender forms, domain), the sends whose sender is not verified (spec 4.4). */
const UNVERIFIED = senderVerifiedSql(
  "x.project_id",
  "ARRAY(SELECT jsonb_array_elements_text(x.forms))",
  "x.domain",
);
const UNVERIFIED_SQL = `
SELECT x.id, x.from_email FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[], $4::text[], $5::text[])
    AS x(id, project_id, forms, domain, from_email)
 WHERE NOT (${UNVERIFIED.profile} OR ${UNVERIFIED.domain})`;

/**
 * Spec 4.4's sender check, made again at hand-over: the sender was verified when the send was accepted, but a
 * domain deleted or an address removed since must not send. Resolves with the activities cancelled.
 */
export async function cancelUnverifiedScheduled(client: PoolClient, ids: string[]): Promise<number> {
  const senders = await client.query<{ id: string; project_id: ProjectId; from_email: string }>(SENDERS_SQL, [
    ids,
  ]);
  if (!senders.rowCount) return 0;
  const rows = senders.rows;
  const unverified = await client.query<{ id: string; from_email: string }>(UNVERIFIED_SQL, [
    rows.map((r) => r.id),
    rows.map((r) => r.project_id),
    rows.map((r) => JSON.stringify(senderAddressForms(r.from_email))),
    rows.map((r) => senderDomain(r.from_email)),
    rows.map((r) => r.from_email),
  ]);
  if (!unverified.rowCount) return 0;
  const cancelled = await client.query<{ n: number }>(CANCEL_UNVERIFIED_SQL, [
    unverified.rows.map((r) => r.id),
    unverified.rows.map((r) => r.from_email),
  ]);
  return cancelled.rows[0]!.n;
}

/** Claims up to `limit` due scheduled sends with FOR UPDATE SKIP LOCKED (replicas take disjoint sends). */
export async function claimDueScheduledSends(
  client: PoolClient,
  limit: number,
): Promise<{ id: string; project_id: ProjectId | null }[]> {
  const { rows } = await client.query<{ id: string; project_id: ProjectId | null }>(
    `SELECT id, project_id FROM scheduled_sends
      WHERE status = 'scheduled' AND scheduled_for <= now()
      ORDER BY scheduled_for
      LIMIT $1
      FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows;
}

/** Cancels the sends' activities whose recipient was suppressed since the accept; resolves with how many. */
export async function cancelSuppressedScheduled(client: PoolClient, ids: string[]): Promise<number> {
  const suppressed = await client.query<{ n: number }>(CANCEL_SUPPRESSED_SQL, [ids]);
  await client.query(DROP_SUPPRESSED_COPIES_SQL, [ids]);
  return suppressed.rows[0]?.n ?? 0;
}

/** `scheduled` → `queued` for the sends' remaining activities. */
export async function queueScheduledActivities(
  client: PoolClient,
  ids: string[],
): Promise<{ id: string; scheduled_send_id: string; project_id: ProjectId | null }[]> {
  const { rows } = await client.query<{
    id: string;
    scheduled_send_id: string;
    project_id: ProjectId | null;
  }>(
    `UPDATE activities SET status = 'queued', updated_at = now()
      WHERE scheduled_send_id = ANY($1::uuid[]) AND status = 'scheduled'
      RETURNING id, scheduled_send_id, project_id`,
    [ids],
  );
  return rows;
}

/** The claimed sends are handed over (`sending`), by `claimedBy`. */
export async function markScheduledSending(
  client: PoolClient,
  ids: string[],
  claimedBy: string,
): Promise<void> {
  await client.query(
    `UPDATE scheduled_sends SET status = 'sending', claimed_at = now(), claimed_by = $2, attempts = attempts + 1, updated_at = now()
      WHERE id = ANY($1::uuid[])`,
    [ids, claimedBy],
  );
}

/**
 * `sending` → `sent` once none of its activities is still waiting (queued/sending) and one of them went out;
 * `cancelled` when every one was cancelled at hand-over (suppressed, sender no longer verified), `failed` when
 * none went out and some failed. Cheap and idempotent; any replica may run it.
 */
export async function settleHandedOffSends(on: DbOrClient): Promise<number> {
  const res = await connOf(on).query(
    `UPDATE scheduled_sends s
        SET status = CASE WHEN agg.cancelled = agg.total THEN 'cancelled'
                          WHEN agg.failed + agg.cancelled = agg.total THEN 'failed' ELSE 'sent' END,
            sent_at = CASE WHEN agg.failed + agg.cancelled = agg.total THEN NULL ELSE now() END,
            cancelled_at = CASE WHEN agg.cancelled = agg.total THEN now() ELSE s.cancelled_at END,
            updated_at = now()
       FROM (SELECT a.scheduled_send_id AS id,
                    count(*) AS total,
                    count(*) FILTER (WHERE a.status = 'failed') AS failed,
                    count(*) FILTER (WHERE a.status = 'cancelled') AS cancelled,
                    count(*) FILTER (WHERE a.status IN ('queued', 'sending', 'scheduled')) AS waiting
               FROM activities a
               JOIN scheduled_sends x ON x.id = a.scheduled_send_id AND x.status = 'sending'
              GROUP BY a.scheduled_send_id) agg
      WHERE s.id = agg.id AND agg.waiting = 0`,
  );
  return res.rowCount ?? 0;
}

/** When the next scheduled send is due (to wake up early instead of waiting a whole interval). */
export async function nextDueAt(on: DbOrClient): Promise<Date | null> {
  const res = await connOf(on).query<{ next: Date | null }>(
    `SELECT min(scheduled_for) AS next FROM scheduled_sends WHERE status = 'scheduled'`,
  );
  return res.rows[0]?.next ?? null;
}

/** A scheduled send as the v1 API shows it. */
export interface ScheduledSendRow {
  id: string;
  status: string;
  scheduled_for: Date;
  timezone: string;
  local_time: string;
  cancelled_at: Date | null;
  sent_at: Date | null;
  created_at: Date;
}

/** The project's scheduled send with that id, or null (another project's id is not found either). */
export async function findScheduledSend(
  on: DbOrClient,
  projectId: ProjectId,
  id: string,
): Promise<ScheduledSendRow | null> {
  const r = await connOf(on).query<ScheduledSendRow>(
    `SELECT id, status, scheduled_for, timezone, local_time, cancelled_at, sent_at, created_at
       FROM scheduled_sends WHERE id = $1 AND project_id = $2`,
    [id, projectId],
  );
  return r.rows[0] ?? null;
}

/** How many of a scheduled send's recipients are in each activity status ({ queued: 3, sent: 7 }). */
export async function countScheduledRecipients(
  on: DbOrClient,
  projectId: ProjectId,
  scheduledSendId: string,
): Promise<Record<string, number>> {
  const r = await connOf(on).query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM activities
      WHERE scheduled_send_id = $1 AND project_id = $2 GROUP BY status`,
    [scheduledSendId, projectId],
  );
  return Object.fromEntries(r.rows.map((c) => [c.status, c.n]));
}

/** Whether every activity of the scheduled send is a test send (the test keys' scope of issue 49). */
export async function scheduledSendIsTest(db: Db, projectId: ProjectId, id: string): Promise<boolean> {
  const { rows } = await db.pool.query<{ test: boolean | null }>(
    "SELECT bool_and(is_test) AS test FROM activities WHERE project_id = $1 AND scheduled_send_id = $2",
    [projectId, id],
  );
  return rows[0]?.test ?? false;
}
