import type { ProjectId } from "@emailsvc/contracts";
import {
  type Db,
  type LeadRow,
  membershipSql,
  SEGMENT_COLUMNS,
  type SegmentRow,
  SqlParams,
} from "@emailsvc/db";
import { findLead, leadView } from "./lead-row";

/** The segments a lead is in now: its static memberships, and every dynamic segment whose filter it matches. */
export async function segmentsOfLead(db: Db, projectId: ProjectId, leadId: string) {
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

/** GET /v1/leads/:id: the lead with the segments it is in. */
export async function getLead(db: Db, projectId: ProjectId, ref: string) {
  const row: LeadRow = await findLead(db, projectId, ref);
  return { ...leadView(row), segments: await segmentsOfLead(db, projectId, row.id) };
}
