import { type ImportOptions, type ImportOptionsInput, type ProjectId } from "@emailsvc/contracts";
import { findImportJob, findSegmentRow, type ImportJobRow, updateImportOptions } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { ImportFileError, resolveMapping } from "@emailsvc/imports";
import type { ImportDeps } from "./import-deps";
import { readSample, sampleCells } from "./read-sample";
import { IMPORT_LIMITS } from "@emailsvc/contracts";

/**
 * Changes a pending job's options (merged over the current ones) and recomputes its mapping from the header and
 * the overrides. Refused once the job was triggered (409), for a segment the project does not have or a dynamic
 * one (400), and for a mapping without an email column or naming a column the file lacks (400).
 */
export async function setImportOptions(
  deps: ImportDeps,
  projectId: ProjectId,
  jobId: string,
  input: ImportOptionsInput,
): Promise<ImportJobRow> {
  const job = await findImportJob(deps.db, projectId, jobId);
  if (!job) throw new AppError(ErrorCode.NOT_FOUND, "Import job not found");
  if (job.status !== "pending")
    throw new AppError(
      ErrorCode.CONFLICT,
      `The import job is ${job.status}; options change only while it is pending`,
    );
  const options: ImportOptions = {
    mode: input.mode ?? job.options.mode,
    tags: input.tags ?? job.options.tags,
    segment_id: input.segment_id !== undefined ? input.segment_id : job.options.segment_id,
    honor_subscription: input.honor_subscription ?? job.options.honor_subscription,
    default_subscription: input.default_subscription ?? job.options.default_subscription,
    mapping: input.mapping ?? job.options.mapping,
  };
  if (options.segment_id) {
    const segment = await findSegmentRow(deps.db, projectId, options.segment_id);
    if (!segment) throw new AppError(ErrorCode.VALIDATION, "segment_id: the project has no such segment");
    if (segment.type !== "static")
      throw new AppError(
        ErrorCode.VALIDATION,
        "segment_id: only a static segment can be joined by an import",
      );
  }
  let mapping = job.mapping;
  if (input.mapping !== undefined) {
    try {
      // The content check of an email column needs rows: read a sample only when the header names none.
      mapping = resolveMapping(job.columns, options.mapping);
    } catch (err) {
      if (!(err instanceof ImportFileError) || err.code !== "no_email_column") throw mappingError(err);
      const sample = await readSample(deps, job.storage_key, IMPORT_LIMITS.previewRows);
      try {
        mapping = resolveMapping(job.columns, options.mapping, sampleCells(sample));
      } catch (again) {
        throw mappingError(again);
      }
    }
  }
  const updated = await updateImportOptions(deps.db, projectId, jobId, { options, mapping });
  if (!updated)
    throw new AppError(ErrorCode.CONFLICT, "The import job was triggered meanwhile; options unchanged");
  return updated;
}

function mappingError(err: unknown): unknown {
  return err instanceof ImportFileError ? new AppError(ErrorCode.VALIDATION, `mapping: ${err.message}`) : err;
}
