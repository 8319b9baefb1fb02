import type { CreateSegmentInput, ProjectId } from "@emailsvc/contracts";
import { type Db, SEGMENT_COLUMNS, type SegmentRow, timeOrderedUuid } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";

/** Admin: a static segment (members added through POST /v1/leads/:id/segments) or a dynamic one (its filter). */
export async function createSegment(
  db: Db,
  projectId: ProjectId,
  input: CreateSegmentInput,
): Promise<SegmentRow> {
  const { rows } = await db.pool.query<SegmentRow>(
    `INSERT INTO segments (id, project_id, name, type, filter, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (project_id, name) DO NOTHING RETURNING ${SEGMENT_COLUMNS}`,
    [
      timeOrderedUuid(),
      projectId,
      input.name,
      input.type,
      input.filter ? JSON.stringify(input.filter) : null,
    ],
  );
  if (!rows[0])
    throw new AppError(ErrorCode.CONFLICT, `A segment named "${input.name}" already exists in the project`);
  return rows[0];
}
