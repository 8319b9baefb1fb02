import type { ProjectId } from "@emailsvc/contracts";
import {
  addStaticMemberships,
  type Db,
  removeStaticMembership,
  segmentsOfLead,
  segmentTypes,
} from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { findSegment } from "../segments/segment-row";
import { findLead } from "./lead-row";

/**
 * POST /v1/leads/:id/segments: adds the lead to static segments (already a member: no change). Every id must be
 * a segment of the key's project (404 naming it otherwise); a dynamic segment's members follow its filter, so
 * adding to one is a 400. Answers the segments the lead is in now.
 */
export async function addLeadToSegments(db: Db, projectId: ProjectId, ref: string, segmentIds: string[]) {
  const lead = await findLead(db, projectId, ref);
  const byId = await segmentTypes(db, projectId, segmentIds);
  for (const id of segmentIds) {
    const type = byId.get(id);
    if (!type) throw new AppError(ErrorCode.NOT_FOUND, `Segment not found: ${id}`);
    if (type !== "static")
      throw new AppError(
        ErrorCode.VALIDATION,
        `segment_ids: ${id} is a dynamic segment; its members follow its filter`,
      );
  }
  await addStaticMemberships(db, projectId, lead.id, segmentIds);
  return { success: true, id: lead.id, segments: await segmentsOfLead(db, projectId, lead.id) };
}

/** DELETE /v1/leads/:id/segments/:segmentId: 404 when the lead is not a member of that static segment. */
export async function removeLeadFromSegment(db: Db, projectId: ProjectId, ref: string, segmentId: string) {
  const lead = await findLead(db, projectId, ref);
  const segment = await findSegment(db, projectId, segmentId);
  if (segment.type !== "static")
    throw new AppError(ErrorCode.VALIDATION, "segmentId is a dynamic segment; its members follow its filter");
  if (!(await removeStaticMembership(db, projectId, segment.id, lead.id)))
    throw new AppError(ErrorCode.NOT_FOUND, "The lead is not in this segment");
  return { success: true, id: lead.id, segments: await segmentsOfLead(db, projectId, lead.id) };
}
