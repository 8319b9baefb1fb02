import {
  Exchanges,
  type ImportColumn,
  type ImportFileInfo,
  type ImportOptions,
  type ImportStatus,
  isUuid,
  makeEnvelope,
  RoutingKeys,
  type ProjectId,
} from "@emailsvc/contracts";
import type { Db } from "../create-db";
import { withTransaction } from "../create-db";
import { insertOutboxRows } from "../outbox";

/** An import job as the database holds it. */
export interface ImportJobRow {
  id: string;
  project_id: ProjectId;
  status: ImportStatus;
  file_name: string;
  format: "csv" | "xlsx" | null;
  storage_key: string;
  size_bytes: number;
  file_info: ImportFileInfo | Record<string, never>;
  columns: string[];
  options: ImportOptions;
  mapping: ImportColumn[];
  total_rows: number | null;
  processed_rows: number;
  created_count: number;
  updated_count: number;
  skipped_count: number;
  duplicate_count: number;
  invalid_count: number;
  suppressed_count: number;
  failure_reason: string | null;
  attempts: number;
  created_at: Date;
  triggered_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export const IMPORT_JOB_COLUMNS = `id, project_id, status, file_name, format, storage_key, size_bytes::float8 AS size_bytes,
  file_info, columns, options, mapping, total_rows, processed_rows, created_count, updated_count, skipped_count,
  duplicate_count, invalid_count, suppressed_count, failure_reason, attempts, created_at, triggered_at, finished_at,
  updated_at`;

/** A new job for an upload about to be stored: `pending`, its file not read yet. */
export async function createImportJob(
  db: Db,
  projectId: ProjectId,
  input: { id: string; fileName: string; storageKey: string; options: ImportOptions },
): Promise<ImportJobRow> {
  const { rows } = await db.pool.query<ImportJobRow>(
    `INSERT INTO import_jobs (id, project_id, file_name, storage_key, options)
     VALUES ($2, $1, $3, $4, $5) RETURNING ${IMPORT_JOB_COLUMNS}`,
    [projectId, input.id, input.fileName, input.storageKey, JSON.stringify(input.options)],
  );
  return rows[0]!;
}

/** What the upload found: the file's size, how it is read, its header and the mapping chosen for it. */
export async function recordImportUpload(
  db: Db,
  projectId: ProjectId,
  jobId: string,
  input: { sizeBytes: number; fileInfo: ImportFileInfo; columns: string[]; mapping: ImportColumn[] },
): Promise<ImportJobRow | undefined> {
  const { rows } = await db.pool.query<ImportJobRow>(
    `UPDATE import_jobs SET size_bytes = $3, format = $4, file_info = $5, columns = $6, mapping = $7, updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status = 'pending' RETURNING ${IMPORT_JOB_COLUMNS}`,
    [
      projectId,
      jobId,
      input.sizeBytes,
      input.fileInfo.format,
      JSON.stringify(input.fileInfo),
      input.columns,
      JSON.stringify(input.mapping),
    ],
  );
  return rows[0];
}

export async function findImportJob(
  db: Db,
  projectId: ProjectId,
  jobId: string,
): Promise<ImportJobRow | undefined> {
  if (!isUuid(jobId)) return undefined;
  const { rows } = await db.pool.query<ImportJobRow>(
    `SELECT ${IMPORT_JOB_COLUMNS} FROM import_jobs WHERE project_id = $1 AND id = $2`,
    [projectId, jobId],
  );
  return rows[0];
}

/** A project's jobs, newest first. */
export async function listImportJobs(
  db: Db,
  projectId: ProjectId,
  opts: { limit: number; status?: ImportStatus },
): Promise<ImportJobRow[]> {
  const { rows } = await db.pool.query<ImportJobRow>(
    `SELECT ${IMPORT_JOB_COLUMNS} FROM import_jobs
      WHERE project_id = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC LIMIT $3`,
    [projectId, opts.status ?? null, opts.limit],
  );
  return rows;
}

/** New options and the mapping they give, while the job is still pending; undefined when it is not. */
export async function updateImportOptions(
  db: Db,
  projectId: ProjectId,
  jobId: string,
  input: { options: ImportOptions; mapping: ImportColumn[] },
): Promise<ImportJobRow | undefined> {
  const { rows } = await db.pool.query<ImportJobRow>(
    `UPDATE import_jobs SET options = $3, mapping = $4, updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status = 'pending' RETURNING ${IMPORT_JOB_COLUMNS}`,
    [projectId, jobId, JSON.stringify(input.options), JSON.stringify(input.mapping)],
  );
  return rows[0];
}

/** pending or processing → failed with the user-safe reason; undefined when it had already ended. */
export async function failImportJob(
  db: Db,
  projectId: ProjectId,
  jobId: string,
  reason: string,
): Promise<ImportJobRow | undefined> {
  const { rows } = await db.pool.query<ImportJobRow>(
    `UPDATE import_jobs SET status = 'failed', failure_reason = $3, finished_at = now(), updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status IN ('pending', 'processing') RETURNING ${IMPORT_JOB_COLUMNS}`,
    [projectId, jobId, reason.slice(0, 1000)],
  );
  return rows[0];
}

/**
 * pending or processing → cancelled. A processor notices at its next chunk (the chunk's checkpoint update wants
 * `processing`) and stops; the chunks committed before stay imported. Undefined when the job had already ended.
 */
export async function cancelImportJob(
  db: Db,
  projectId: ProjectId,
  jobId: string,
): Promise<ImportJobRow | undefined> {
  const { rows } = await db.pool.query<ImportJobRow>(
    `UPDATE import_jobs SET status = 'cancelled', finished_at = now(), updated_at = now()
      WHERE project_id = $1 AND id = $2 AND status IN ('pending', 'processing') RETURNING ${IMPORT_JOB_COLUMNS}`,
    [projectId, jobId],
  );
  return rows[0];
}

export type ImportTriggerOutcome =
  | { found: false }
  | {
      found: true;
      projectId: ProjectId;
      previousStatus: ImportStatus;
      status: ImportStatus;
      started: boolean;
    };

/**
 * POST /trigger-job (spec 4.8 gives only the job id, so this one lookup is not scoped by a project): a pending job
 * becomes `processing` and its job.import-requested command is written to the outbox in the same transaction; a
 * job in any other state is left as it is.
 */
export async function triggerImportJob(db: Db, jobId: string): Promise<ImportTriggerOutcome> {
  return withTransaction(db.pool, async (c) => {
    const found = await c.query<{ project_id: ProjectId; status: ImportStatus }>(
      "SELECT project_id, status FROM import_jobs WHERE id = $1 FOR UPDATE",
      [jobId],
    );
    const job = found.rows[0];
    if (!job) return { found: false };
    if (job.status !== "pending")
      return {
        found: true,
        projectId: job.project_id,
        previousStatus: job.status,
        status: job.status,
        started: false,
      };
    await c.query(
      `UPDATE import_jobs SET status = 'processing', triggered_at = now(), updated_at = now()
        WHERE project_id = $1 AND id = $2`,
      [job.project_id, jobId],
    );
    await insertOutboxRows(c, [
      {
        exchange: Exchanges.jobs,
        routingKey: RoutingKeys.jobImportRequested,
        payload: makeEnvelope(
          RoutingKeys.jobImportRequested,
          { importJobId: jobId },
          { projectId: job.project_id },
        ),
      },
    ]);
    return {
      found: true,
      projectId: job.project_id,
      previousStatus: "pending",
      status: "processing",
      started: true,
    };
  });
}

/**
 * Triggered jobs, oldest first, for a scheduler's sweep: the ones another replica is reading are among them (its
 * advisory lock tells), the others were left by a processor that died or lost its database.
 */
export async function findTriggeredImportJobs(db: Db, limit: number): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT id FROM import_jobs WHERE status = 'processing' ORDER BY triggered_at LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.id);
}
