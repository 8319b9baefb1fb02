import type { ProjectId } from "@emailsvc/contracts";
import { type Db, findSegmentRow, type SegmentRow } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";

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

export async function findSegment(db: Db, projectId: ProjectId, id: string): Promise<SegmentRow> {
  const row = await findSegmentRow(db, projectId, id);
  if (!row) throw new AppError(ErrorCode.NOT_FOUND, MSG_SEGMENT_NOT_FOUND);
  return row;
}
