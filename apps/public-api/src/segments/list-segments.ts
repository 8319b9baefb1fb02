import type { ProjectId } from "@emailsvc/contracts";
import { segmentView } from "./segment-row";
import { countSegmentMembers, type Db, listSegmentRows } from "@emailsvc/db";

/** Admin: the project's segments with their live member counts (at most 500, oldest first). */
export async function listSegments(db: Db, projectId: ProjectId) {
  const out = [];
  for (const s of await listSegmentRows(db, projectId))
    out.push(segmentView(s, await countSegmentMembers(db, projectId, s)));
  return out;
}
