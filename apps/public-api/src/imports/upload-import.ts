import { randomUUID } from "node:crypto";
import { DEFAULT_IMPORT_OPTIONS, IMPORT_LIMITS, type ProjectId } from "@emailsvc/contracts";
import { createImportJob, failImportJob, type ImportJobRow, recordImportUpload } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { ImportFileError, resolveMapping } from "@emailsvc/imports";
import { ObjectTooLargeError, putObjectStream } from "@emailsvc/provider";
import type { ImportDeps } from "./import-deps";
import { readSample, sampleCells } from "./read-sample";

export interface UploadInput {
  fileName: string;
  /** The request body, streamed to S3 as it arrives. */
  body: AsyncIterable<Uint8Array>;
  /** The Content-Length header, when the client sent one: over the cap, nothing is read. */
  declaredBytes?: number;
  contentType?: string;
}

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

/** A job that failed on its file: the 4xx answer names the job, which keeps the reason. */
function failed(code: ErrorCode, job: ImportJobRow, reason: string): AppError {
  return new AppError(code, reason, { extra: { jobId: job.id, status: "failed" } });
}

/**
 * Creates the job (`pending`), streams the body to S3 under the cap (never holding more than one 8 MB part), then
 * reads the file's head: its format, encoding and delimiter, its header, and a sample of rows to choose the
 * mapping (synonyms, or the column whose values are addresses). A file that cannot be imported (over the cap, not
 * CSV or XLSX, empty, only a header, no email column) leaves the job `failed` with the reason, and the answer is
 * a 4xx naming the job.
 */
export async function uploadImport(
  deps: ImportDeps,
  projectId: ProjectId,
  input: UploadInput,
): Promise<ImportJobRow> {
  const id = randomUUID();
  const job = await createImportJob(deps.db, projectId, {
    id,
    fileName: input.fileName,
    storageKey: `imports/${projectId}/${id}`,
    options: DEFAULT_IMPORT_OPTIONS,
  });
  const tooLarge = `the file is larger than the ${mb(deps.maxFileBytes)} cap`;
  if (input.declaredBytes !== undefined && input.declaredBytes > deps.maxFileBytes) {
    await failImportJob(deps.db, projectId, id, tooLarge);
    throw failed(ErrorCode.PAYLOAD_TOO_LARGE, job, tooLarge);
  }
  let size: number;
  try {
    size = await putObjectStream(deps.s3, {
      bucket: deps.bucket,
      key: job.storage_key,
      body: input.body,
      maxBytes: deps.maxFileBytes,
      ...(input.contentType ? { contentType: input.contentType } : {}),
    });
  } catch (err) {
    if (!(err instanceof ObjectTooLargeError)) throw err;
    await failImportJob(deps.db, projectId, id, tooLarge);
    throw failed(ErrorCode.PAYLOAD_TOO_LARGE, job, tooLarge);
  }
  try {
    const sample = await readSample(deps, job.storage_key, IMPORT_LIMITS.previewRows);
    if (sample.rows.length === 0)
      throw new ImportFileError("the file has a header but no rows below it", "no_rows");
    const mapping = resolveMapping(sample.header, {}, sampleCells(sample));
    const recorded = await recordImportUpload(deps.db, projectId, id, {
      sizeBytes: size,
      fileInfo: sample.info,
      columns: sample.header,
      mapping,
    });
    return recorded ?? job;
  } catch (err) {
    if (!(err instanceof ImportFileError)) throw err;
    await failImportJob(deps.db, projectId, id, err.message);
    throw failed(ErrorCode.VALIDATION, job, err.message);
  }
}
