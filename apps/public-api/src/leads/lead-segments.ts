import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { findSegment } from "../segments/segment-row";
import { segmentsOfLead } from "./get-lead";
import { findLead } from "./lead-row";

/**
 * POST /v1/leads/:id/segments: adds the lead to static segments (already a member: no change). Every id must be
 * a segment of the key's project (404 naming it otherwise); a dynamic segment's members follow its filter, so
 * adding to one is a 400. Answers the segments the lead is in now.
 */
export async function addLeadToSegments(db: Db, projectId: ProjectId, ref: string, segmentIds: string[]) {
  const lead = await findLead(db, projectId, ref);
  const { rows } = await db.pool.query<{ id: string; type: string }>(
    "SELECT id, type FROM segments WHERE project_id = $1 AND id = ANY($2::uuid[])",
    [projectId, segmentIds],
  );
  const byId = new Map(rows.map((r) => [r.id, r.type]));
  for (const id of segmentIds) {
    const type = byId.get(id);
    if (!type) throw new AppError(ErrorCode.NOT_FOUND, `Segment not found: ${id}`);
    if (type !== "static")
      throw new AppError(
        ErrorCode.VALIDATION,
        `segment_ids: ${id} is a dynamic segment; its members follow its filter`,
      );
  }
  await db.pool.query(
    `INSERT INTO segment_members (segment_id, lead_id, project_id) SELECT s, $2, $1 FROM unnest($3::uuid[]) s
     ON CONFLICT DO NOTHING`,
    [projectId, lead.id, segmentIds],
  );
  return { success: true, id: lead.id, segments: await segmentsOfLead(db, projectId, lead.id) };
}

/** DELETE /v1/leads/:id/segments/:segmentId: 404 when the lead is not a member of that static segment. */
export async function removeLeadFromSegment(db: Db, projectId: ProjectId, ref: string, segmentId: string) {
  const lead = await findLead(db, projectId, ref);
  const segment = await findSegment(db, projectId, segmentId);
  if (segment.type !== "static")
    throw new AppError(ErrorCode.VALIDATION, "segmentId is a dynamic segment; its members follow its filter");
  const del = await db.pool.query(
    "DELETE FROM segment_members WHERE project_id = $1 AND segment_id = $2 AND lead_id = $3",
    [projectId, segment.id, lead.id],
  );
  if (!del.rowCount) throw new AppError(ErrorCode.NOT_FOUND, "The lead is not in this segment");
  return { success: true, id: lead.id, segments: await segmentsOfLead(db, projectId, lead.id) };
}
