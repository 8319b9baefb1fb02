import { isUuid, type SegmentFilter, segmentFilterSchema } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { compileSegmentFilter, type SqlParams } from "./compile-segment-filter";

export interface SegmentRow {
  id: string;
  name: string;
  type: "static" | "dynamic";
  filter: SegmentFilter | null;
  created_at: Date;
  updated_at: Date;
}

export const SEGMENT_COLUMNS = "id, name, type, filter, created_at, updated_at";
export const MSG_SEGMENT_NOT_FOUND = "Segment not found";

export function segmentView(s: SegmentRow, memberCount?: number) {
  return {
    id: s.id,
    name: s.name,
    type: s.type,
    filter: s.filter,
    ...(memberCount !== undefined ? { member_count: memberCount } : {}),
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}

export async function findSegment(db: Db, projectId: string, id: string): Promise<SegmentRow> {
  const row = isUuid(id)
    ? (
        await db.pool.query<SegmentRow>(
          `SELECT ${SEGMENT_COLUMNS} FROM segments WHERE project_id = $1 AND id = $2`,
          [projectId, id],
        )
      ).rows[0]
    : undefined;
  if (!row) throw new AppError(ErrorCode.NOT_FOUND, MSG_SEGMENT_NOT_FOUND);
  return row;
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
