import type { ProjectId } from "@emailsvc/contracts";
import type { Pool, PoolClient } from "pg";
import { IMPORT_JOB_COLUMNS, type ImportJobRow } from "./import-jobs.repo";

/** The advisory-lock namespace of import jobs (the first key of the two-key form; the job id's hash is the second). */
const LOCK_SPACE = 25_0001;

/**
 * Takes the job's session-level advisory lock on the processor's own connection, without waiting: only its holder
 * processes the job. A processor killed with SIGKILL loses its connection and with it the lock at once, so the
 * next sweep (of any replica) resumes the job; no lease has to run out.
 */
export async function tryLockImportJob(client: PoolClient, jobId: string): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>(
    "SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked",
    [LOCK_SPACE, jobId],
  );
  return rows[0]!.locked;
}

export async function unlockImportJob(client: PoolClient, jobId: string): Promise<void> {
  await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [LOCK_SPACE, jobId]);
}

/**
 * A run begins (the lock is held): one more attempt counted; the job as it is, or undefined when it is no longer
 * `processing` (finished, failed or cancelled meanwhile). The job id comes from the scheduler's queue or sweep,
 * which span every project.
 */
export async function beginImportRun(client: PoolClient, jobId: string): Promise<ImportJobRow | undefined> {
  const { rows } = await client.query<ImportJobRow>(
    `UPDATE import_jobs SET attempts = attempts + 1, updated_at = now()
      WHERE id = $1 AND status = 'processing' RETURNING ${IMPORT_JOB_COLUMNS}`,
    [jobId],
  );
  return rows[0];
}

/** The rows the file holds, once read through (progress: processed of total). */
export async function setImportTotal(
  client: PoolClient | Pool,
  projectId: ProjectId,
  jobId: string,
  totalRows: number,
): Promise<void> {
  await client.query(
    "UPDATE import_jobs SET total_rows = $3, updated_at = now() WHERE project_id = $1 AND id = $2",
    [projectId, jobId, totalRows],
  );
}

/** processing → completed (the total is what was read: blank rows never count). False when it was cancelled. */
export async function completeImportJob(
  client: PoolClient,
  projectId: ProjectId,
  jobId: string,
): Promise<boolean> {
  const res = await client.query(
    `UPDATE import_jobs SET status = 'completed', total_rows = processed_rows, finished_at = now(), updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status = 'processing'`,
    [projectId, jobId],
  );
  return res.rowCount === 1;
}
