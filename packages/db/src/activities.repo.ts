import type { ProjectId } from "@emailsvc/contracts";
import type { Pool } from "pg";
import { withTransaction } from "./create-db";
import { QUOTA_REFUND_CTES, refundQuota, usagePeriod } from "./quota";

/**
 * Cancels a scheduled send that has not been handed over, with its activities, and gives its live emails back to
 * the quota of the month they were counted in. Null when it was no longer `scheduled` (handed over to the
 * send-worker, or cancelled already): the scheduler's claim locks the same row, so a send is either cancelled or
 * sent, never both. Else the number of activities cancelled.
 */
export async function cancelScheduledSend(
  pool: Pool,
  projectId: ProjectId,
  scheduledSendId: string,
  countedAt: Date,
): Promise<number | null> {
  return withTransaction(pool, async (c) => {
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
  pool: Pool,
  projectId: ProjectId | null,
  sends: { activityIds: readonly string[]; refusedIds: readonly string[]; reason: string; period: string },
): Promise<void> {
  await pool.query(CANCEL_UNSENT_SQL, [
    projectId,
    sends.activityIds,
    sends.reason,
    sends.refusedIds,
    sends.period,
  ]);
}
