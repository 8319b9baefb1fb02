import type { Db } from "@emailsvc/db";
import { SqlParams } from "./compile-segment-filter";
import { membershipSql, type SegmentRow } from "./segment-row";

/** The live member count: a dynamic segment is evaluated now, over the project's leads and events. */
export async function countSegmentMembers(db: Db, projectId: string, segment: SegmentRow): Promise<number> {
  const params = new SqlParams([projectId]);
  const where = membershipSql(segment, params);
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM leads l WHERE l.project_id = $1 AND ${where}`,
    params.values,
  );
  return rows[0]!.n;
}
