import type { ProjectId } from "@emailsvc/contracts";
import { segmentView } from "./segment-row";
import { countSegmentMembers, type Db, SEGMENT_COLUMNS, type SegmentRow } from "@emailsvc/db";

/** Admin: the project's segments with their live member counts (at most 500, oldest first). */
export async function listSegments(db: Db, projectId: ProjectId) {
  const { rows } = await db.pool.query<SegmentRow>(
    `SELECT ${SEGMENT_COLUMNS} FROM segments WHERE project_id = $1 ORDER BY created_at, id LIMIT 500`,
    [projectId],
  );
  const out = [];
  for (const s of rows) out.push(segmentView(s, await countSegmentMembers(db, projectId, s)));
  return out;
}
