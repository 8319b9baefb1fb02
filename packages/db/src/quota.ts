import type { ProjectId } from "@emailsvc/contracts";
// The usage/quota aggregate: the monthly live quota, how an accept charges it and the one way a charge is given
// back. Written once here; the accept statements (packages/sending) and every cancel use these.
import type { Pool, PoolClient } from "pg";
import type { Db } from "./create-db";

/** Spec 8: "Emails per month (platform) 500,000". */
export const MONTHLY_QUOTA = 500_000;

/** 'YYYY-MM' in UTC: the quota's calendar month. */
export function usagePeriod(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/**
 * How a send is charged to the monthly quota, inside the accept statements (packages/sending, accept-gates.ts): added to the
 * month's row only while it stays within `limit`; no row returned means the quota refused.
 */
export const quotaUpsert = (
  limit: string,
) => `ON CONFLICT (project_id, period) DO UPDATE SET live_sent = u.live_sent + EXCLUDED.live_sent
    WHERE u.live_sent + EXCLUDED.live_sent <= ${limit}
  RETURNING 1`;

/**
 * The one way a charge is given back (a cancelled scheduled send, a synchronous send that failed, activities
 * cancelled at hand-over): append to a WITH list that defines `refund(project_id, period, n)`, the live emails
 * to give back per project and month in which they were counted. Both the month's quota and the project's
 * total_sent go down, never below zero.
 */
export const QUOTA_REFUND_CTES = `quota_refund AS (
  UPDATE project_usage u SET live_sent = GREATEST(u.live_sent - r.n, 0)
    FROM refund r WHERE u.project_id = r.project_id AND u.period = r.period AND r.n > 0
), total_refund AS (
  UPDATE projects p SET total_sent = GREATEST(p.total_sent - t.n, 0)
    FROM (SELECT project_id, sum(n)::int AS n FROM refund GROUP BY 1) t WHERE p.id = t.project_id AND t.n > 0
)`;

const REFUND_SQL = `WITH refund AS (SELECT $1::uuid AS project_id, $2::text AS period, $3::int AS n), ${QUOTA_REFUND_CTES}
SELECT 1`;

/** Gives `n` live emails back to `period`'s quota and to total_sent (in the caller's transaction when given one). */
export async function refundQuota(
  q: Pick<Pool | PoolClient, "query">,
  projectId: ProjectId,
  period: string,
  n: number,
): Promise<void> {
  if (n > 0) await q.query(REFUND_SQL, [projectId, period, n]);
}

/** The live emails charged to `period`'s monthly quota so far (0 before the month's first send). */
export async function monthlyLiveSent(db: Db, projectId: ProjectId, period = usagePeriod()): Promise<number> {
  const { rows } = await db.pool.query<{ live_sent: number }>(
    "SELECT live_sent FROM project_usage WHERE project_id = $1 AND period = $2",
    [projectId, period],
  );
  return rows[0]?.live_sent ?? 0;
}
