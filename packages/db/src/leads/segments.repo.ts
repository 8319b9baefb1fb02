import {
  type CreateSegmentInput,
  isUuid,
  type SegmentFilter,
  segmentFilterSchema,
  type ProjectId,
} from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { timeOrderedUuid } from "../time-ordered-uuid";
import { countCappedWithin, type Total } from "../listing";
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

/** A new segment; undefined when the project has one of that name already. */
export async function insertSegment(
  db: Db,
  projectId: ProjectId,
  input: CreateSegmentInput,
): Promise<SegmentRow | undefined> {
  const filter = input.filter ? JSON.stringify(input.filter) : null;
  const inserted = await db.pool.query<SegmentRow>(
    `INSERT INTO segments (id, project_id, name, type, filter, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (project_id, name) DO NOTHING RETURNING ${SEGMENT_COLUMNS}`,
    [timeOrderedUuid(), projectId, input.name, input.type, filter],
  );
  return inserted.rows[0];
}

/** The project's segments, oldest first (at most 500). */
export async function listSegmentRows(db: Db, projectId: ProjectId): Promise<SegmentRow[]> {
  const { rows } = await db.pool.query<SegmentRow>(
    `SELECT ${SEGMENT_COLUMNS} FROM segments WHERE project_id = $1 ORDER BY created_at, id LIMIT 500`,
    [projectId],
  );
  return rows;
}

/** Deletes the segment (its memberships go with it). */
export async function deleteSegment(db: Db, projectId: ProjectId, segmentId: string): Promise<void> {
  await db.pool.query("DELETE FROM segments WHERE project_id = $1 AND id = $2", [projectId, segmentId]);
}

/** The type of each of these ids that is a segment of the project (another project's are absent). */
export async function segmentTypes(
  db: Db,
  projectId: ProjectId,
  segmentIds: string[],
): Promise<Map<string, SegmentRow["type"]>> {
  const { rows } = await db.pool.query<{ id: string; type: SegmentRow["type"] }>(
    "SELECT id, type FROM segments WHERE project_id = $1 AND id = ANY($2::uuid[])",
    [projectId, segmentIds],
  );
  return new Map(rows.map((r) => [r.id, r.type]));
}

/** Adds the lead to these static segments (already a member: no change). */
export async function addStaticMemberships(
  db: Db,
  projectId: ProjectId,
  leadId: string,
  segmentIds: string[],
): Promise<void> {
  await db.pool.query(
    `INSERT INTO segment_members (segment_id, lead_id, project_id) SELECT s, $2, $1 FROM unnest($3::uuid[]) s
     ON CONFLICT DO NOTHING`,
    [projectId, leadId, segmentIds],
  );
}

/** Removes the lead from a static segment; false when it was not a member. */
export async function removeStaticMembership(
  db: Db,
  projectId: ProjectId,
  segmentId: string,
  leadId: string,
): Promise<boolean> {
  const del = await db.pool.query(
    "DELETE FROM segment_members WHERE project_id = $1 AND segment_id = $2 AND lead_id = $3",
    [projectId, segmentId, leadId],
  );
  return !!del.rowCount;
}

/** The segments a lead is in now: its static memberships, and every dynamic segment whose filter it matches. */
export async function segmentsOfLead(
  db: Db,
  projectId: ProjectId,
  leadId: string,
): Promise<Pick<SegmentRow, "id" | "name" | "type">[]> {
  const { rows } = await db.pool.query<SegmentRow & { member: boolean }>(
    `SELECT ${SEGMENT_COLUMNS.split(", ")
      .map((c) => `s.${c}`)
      .join(", ")}, (m.lead_id IS NOT NULL) AS member
       FROM segments s LEFT JOIN segment_members m ON m.segment_id = s.id AND m.lead_id = $2
      WHERE s.project_id = $1 ORDER BY s.created_at, s.id LIMIT 500`,
    [projectId, leadId],
  );
  const dynamic = rows.filter((s) => s.type === "dynamic");
  let matches: boolean[] = [];
  if (dynamic.length) {
    const params = new SqlParams([projectId, leadId]);
    const exprs = dynamic.map((s) => membershipSql(s, params));
    const r = await db.pool.query<{ m: boolean[] }>(
      `SELECT ARRAY[${exprs.join(", ")}]::bool[] AS m FROM leads l WHERE l.project_id = $1 AND l.id = $2`,
      params.values,
    );
    matches = r.rows[0]?.m ?? [];
  }
  const inDynamic = new Set(dynamic.filter((_s, i) => matches[i]).map((s) => s.id));
  return rows
    .filter((s) => (s.type === "static" ? s.member : inDynamic.has(s.id)))
    .map((s) => ({ id: s.id, name: s.name, type: s.type }));
}

/**
 * The segment builder's live count of a filter not saved yet: exact up to COUNT_CAP within `timeoutMs`, else the
 * planner's estimate (`exact: false`, shown as "about N"), so that a filter over a million leads answers in time.
 */
export async function previewSegmentCount(
  db: Db,
  projectId: ProjectId,
  filter: SegmentFilter,
  timeoutMs: number,
): Promise<Total> {
  const params = new SqlParams([projectId]);
  const where = compileSegmentFilter(filter, params);
  return countCappedWithin(db, `leads l WHERE l.project_id = $1 AND ${where}`, params.values, timeoutMs);
}
