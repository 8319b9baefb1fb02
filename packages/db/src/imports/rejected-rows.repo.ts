import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "../create-db";

export interface RejectedRowRecord {
  line: number;
  reason: string;
  cells: string[];
}

/** A page of a job's rejected rows in line order, after `afterLine` (keyset: the report streams page by page). */
export async function rejectedImportRows(
  db: Db,
  projectId: ProjectId,
  jobId: string,
  afterLine: number,
  limit: number,
): Promise<RejectedRowRecord[]> {
  const { rows } = await db.pool.query<RejectedRowRecord>(
    `SELECT line, reason, cells FROM import_rejected_rows
      WHERE project_id = $1 AND job_id = $2 AND line > $3 ORDER BY line LIMIT $4`,
    [projectId, jobId, afterLine, limit],
  );
  return rows;
}
