import type { CreateSegmentInput, ProjectId } from "@emailsvc/contracts";
import { type Db, insertSegment, type SegmentRow } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";

/** Admin: a static segment (members added through POST /v1/leads/:id/segments) or a dynamic one (its filter). */
export async function createSegment(
  db: Db,
  projectId: ProjectId,
  input: CreateSegmentInput,
): Promise<SegmentRow> {
  const row = await insertSegment(db, projectId, input);
  if (!row)
    throw new AppError(ErrorCode.CONFLICT, `A segment named "${input.name}" already exists in the project`);
  return row;
}
