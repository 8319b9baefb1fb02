// What the import tests share: s3rver with the imports bucket, the package's migrated PostgreSQL, a project, and
// a job staged as public-api's upload leaves it (file in S3, header and mapping recorded, options set, triggered).
import { randomUUID } from "node:crypto";
import { type ImportOptions, type ProjectId, DEFAULT_IMPORT_OPTIONS, projectIdOf } from "@emailsvc/contracts";
import {
  createDb,
  createImportJob,
  type Db,
  type ImportJobRow,
  recordImportUpload,
  triggerImportJob,
  updateImportOptions,
} from "@emailsvc/db";
import { openImportFile, resolveMapping, type ImportSource } from "@emailsvc/imports";
import { createLogger, type Logger } from "@emailsvc/observability";
import { createS3Client, objectSource, putObjectStream } from "@emailsvc/provider";
import { startS3, type TestS3 } from "@emailsvc/testing";
import { processImportJob, type ProcessImportDeps, type RunResult } from "../src/imports/process-import-job";

export interface ImportHarness {
  db: Db;
  s3: TestS3;
  s3Client: ReturnType<typeof createS3Client>;
  openSource(key: string): Promise<ImportSource | null>;
  close(): Promise<void>;
}

export async function startImportHarness(): Promise<ImportHarness> {
  const s3 = await startS3("imports");
  const db = createDb(process.env.DATABASE_URL!, { max: 20 });
  const s3Client = createS3Client({
    endpoint: s3.endpoint,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  return {
    db,
    s3,
    s3Client,
    openSource: (key) => objectSource(s3Client, "imports", key),
    async close() {
      await db.close();
      await s3.close();
    },
  };
}

export async function newProject(db: Db): Promise<ProjectId> {
  const id = projectIdOf(randomUUID());
  await db.pool.query("INSERT INTO projects (id, name) VALUES ($1, 'imports test')", [id]);
  return id;
}

/** A job as public-api leaves it after the upload (and its options), then triggered unless `trigger: false`. */
export async function stageJob(
  h: ImportHarness,
  projectId: ProjectId,
  file: Buffer,
  opts: { options?: Partial<ImportOptions>; trigger?: boolean; fileName?: string } = {},
): Promise<ImportJobRow> {
  const id = randomUUID();
  const key = `imports/${projectId}/${id}`;
  await createImportJob(h.db, projectId, {
    id,
    fileName: opts.fileName ?? "contacts.csv",
    storageKey: key,
    options: DEFAULT_IMPORT_OPTIONS,
  });
  const size = await putObjectStream(h.s3Client, {
    bucket: "imports",
    key,
    body: (async function* () {
      yield file;
    })(),
    maxBytes: 1 << 30,
  });
  const opened = await openImportFile((await h.openSource(key))!);
  const first = await opened.rows.next();
  await opened.close();
  const sample = first.done ? [] : first.value.slice(0, 20).map((r) => r.cells);
  const options = { ...DEFAULT_IMPORT_OPTIONS, ...opts.options };
  const mapping = resolveMapping(opened.header, options.mapping, sample);
  await recordImportUpload(h.db, projectId, id, {
    sizeBytes: size,
    fileInfo: opened.info,
    columns: opened.header,
    mapping,
  });
  const job = (await updateImportOptions(h.db, projectId, id, { options, mapping }))!;
  if (opts.trigger !== false) await triggerImportJob(h.db, id);
  return job;
}

export const silent: Logger = createLogger({
  service: "scheduler-imports-test",
  level: (process.env.TEST_LOG_LEVEL ?? "silent") as "silent",
});

export function processDeps(h: ImportHarness, chunkRows = 1_000): ProcessImportDeps {
  return {
    db: h.db,
    logger: silent,
    openSource: h.openSource,
    chunkRows,
    parallelChunks: 2,
    maxAttempts: 10,
  };
}

export function runJob(h: ImportHarness, jobId: string, chunkRows = 1_000): Promise<RunResult> {
  return processImportJob(processDeps(h, chunkRows), jobId, new AbortController().signal);
}

export async function jobRow(db: Db, jobId: string): Promise<ImportJobRow & Record<string, unknown>> {
  const { rows } = await db.pool.query("SELECT * FROM import_jobs WHERE id = $1", [jobId]);
  return rows[0];
}

export async function leadsOf(db: Db, projectId: string) {
  const { rows } = await db.pool.query<{
    email: string;
    email_normalized: string;
    first_name: string | null;
    last_name: string | null;
    phone: string | null;
    attributes: Record<string, unknown>;
    tags: string[];
    subscription: string;
    subscription_source: string | null;
    source: string;
  }>(
    `SELECT email, email_normalized, first_name, last_name, phone, attributes, tags, subscription,
            subscription_source, source
       FROM leads WHERE project_id = $1 ORDER BY email_normalized`,
    [projectId],
  );
  return rows;
}

export async function rejected(db: Db, jobId: string) {
  const { rows } = await db.pool.query<{ line: number; reason: string; cells: string[] }>(
    "SELECT line, reason, cells FROM import_rejected_rows WHERE job_id = $1 ORDER BY line",
    [jobId],
  );
  return rows;
}

/** `n` rows of `email,first_name,last_name,company,city,plan,tags` with unique emails (`tag` keeps files apart). */
export function contactsCsv(n: number, tag = "u", from = 0): Buffer {
  const lines = ["email,first_name,last_name,company,city,plan,tags"];
  for (let i = from; i < from + n; i++)
    lines.push(
      `${tag}${i}@example${i % 50}.com,First${i},Last${i},Company ${i % 700},City ${i % 90},${i % 3 ? "pro" : "free"},"a,b"`,
    );
  return Buffer.from(lines.join("\r\n") + "\r\n");
}
