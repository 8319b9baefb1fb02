import { isUuid, type SegmentFilter, segmentFilterSchema, type ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { compileSegmentFilter, SqlParams } from "./segment-filter";

export interface SegmentRow {
  id: string;
  name: string;
  type: "static" | "dynamic";
  filter: SegmentFilter | null;
  created_at: Date;
  updated_at: Date;
}

export const SEGMENT_COLUMNS = "id, name, type, filter, created_at, updated_at";

/** The project's segment `id`; undefined for a malformed id or another project's segment. */
export async function findSegmentRow(
  db: Db,
  projectId: ProjectId,
  id: string,
): Promise<SegmentRow | undefined> {
  if (!isUuid(id)) return undefined;
  return (
    await db.pool.query<SegmentRow>(
      `SELECT ${SEGMENT_COLUMNS} FROM segments WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    )
  ).rows[0];
}

/**
 * "The lead `l` is a member": a static segment's explicit rows, or a dynamic segment's filter compiled to SQL.
 * The stored filter is parsed again (a row written by an older version must not become SQL unchecked).
 */
export function membershipSql(s: SegmentRow, params: SqlParams, l = "l"): string {
  if (s.type === "static")
    return `EXISTS (SELECT 1 FROM segment_members m WHERE m.segment_id = ${params.add(s.id)}::uuid AND m.lead_id = ${l}.id)`;
  const filter = segmentFilterSchema.safeParse(s.filter);
  if (!filter.success) return "false";
  return compileSegmentFilter(filter.data, params, l);
}

/** The live member count: a dynamic segment is evaluated now, over the project's leads and events. */
export async function countSegmentMembers(
  db: Db,
  projectId: ProjectId,
  segment: SegmentRow,
): Promise<number> {
  const params = new SqlParams([projectId]);
  const where = membershipSql(segment, params);
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM leads l WHERE l.project_id = $1 AND ${where}`,
    params.values,
  );
  return rows[0]!.n;
}
