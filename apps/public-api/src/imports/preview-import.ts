import { IMPORT_LIMITS, type ProjectId } from "@emailsvc/contracts";
import { findImportJob, knownLeadEmails } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { createRowReader, ImportFileError, reportCell, SeenEmails } from "@emailsvc/imports";
import type { ImportDeps } from "./import-deps";
import { readSample } from "./read-sample";

/** What the job would do with a row: the lead's action in the job's mode, or why the row is refused. */
type Action = "create" | "update" | "skip" | "duplicate" | "invalid";

/**
 * The first 20 rows as they would be imported, before anything is written: each row's lead (fields, tags,
 * attributes, consent) and action under the job's current options and mapping: create, update, skip (the mode
 * leaves it alone), duplicate (an earlier row has the email) or invalid with the reason.
 */
export async function previewImport(
  deps: ImportDeps,
  projectId: ProjectId,
  jobId: string,
  n = IMPORT_LIMITS.previewRows,
) {
  const job = await findImportJob(deps.db, projectId, jobId);
  if (!job) throw new AppError(ErrorCode.NOT_FOUND, "Import job not found");
  if (job.status === "failed")
    throw new AppError(
      ErrorCode.CONFLICT,
      `The import job failed: ${job.failure_reason ?? "unknown reason"}`,
    );
  let sample;
  try {
    sample = await readSample(deps, job.storage_key, n);
  } catch (err) {
    throw err instanceof ImportFileError ? new AppError(ErrorCode.VALIDATION, err.message) : err;
  }
  const read = createRowReader(job.mapping, job.options);
  const outcomes = sample.rows.map(read);
  const known = await knownLeadEmails(
    deps.db,
    projectId,
    outcomes.flatMap((o) => (o.ok ? [o.lead.norm] : [])),
  );
  const seen = new SeenEmails(64);
  const mode = job.options.mode;
  const rows = outcomes.map((o, i) => {
    const cells = sample.rows[i]!.cells.map(reportCell);
    if (!o.ok) return { line: o.line, action: "invalid" as Action, reason: o.reason, cells };
    const lead = o.lead;
    const first = seen.add(lead.norm, lead.line);
    const exists = known.has(lead.norm);
    const action: Action = first
      ? "duplicate"
      : exists
        ? mode === "insert_only"
          ? "skip"
          : "update"
        : mode === "update_only"
          ? "skip"
          : "create";
    return {
      line: lead.line,
      action,
      ...(first ? { reason: `duplicate of line ${first}` } : {}),
      lead: {
        email: lead.email,
        first_name: lead.firstName,
        last_name: lead.lastName,
        phone: lead.phone,
        tags: lead.tags,
        attributes: JSON.parse(lead.attributes) as Record<string, unknown>,
        // a new lead's consent, or the change a known lead would see (null: unchanged)
        subscription: exists ? lead.subscription : (lead.subscription ?? job.options.default_subscription),
      },
      cells,
    };
  });
  return {
    jobId: job.id,
    status: job.status,
    file: { name: job.file_name, ...sample.info },
    columns: job.mapping.map((c) => ({ header: c.header, target: c.target })),
    rows,
  };
}
