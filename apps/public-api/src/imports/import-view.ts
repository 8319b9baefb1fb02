import type { ImportJobRow } from "@emailsvc/db";

/** An import job as the admin API shows it: state, file, options, mapping, progress and counts. */
export function importJobView(j: ImportJobRow) {
  return {
    jobId: j.id,
    project_id: j.project_id,
    status: j.status,
    file: {
      name: j.file_name,
      size_bytes: j.size_bytes,
      ...j.file_info,
    },
    options: {
      mode: j.options.mode,
      tags: j.options.tags,
      segment_id: j.options.segment_id,
      honor_subscription: j.options.honor_subscription,
      default_subscription: j.options.default_subscription,
    },
    columns: j.mapping.map((c) => ({ header: c.header, target: c.target })),
    // processed: rows read so far (imported or rejected); total: rows in the file, known once it was read through
    progress: {
      processed: j.processed_rows,
      total: j.total_rows,
      percent: j.total_rows ? Math.min(100, Math.floor((j.processed_rows * 100) / j.total_rows)) : null,
    },
    counts: {
      created: j.created_count,
      updated: j.updated_count,
      skipped: j.skipped_count,
      duplicate: j.duplicate_count,
      invalid: j.invalid_count,
      suppressed: j.suppressed_count,
    },
    failure_reason: j.failure_reason,
    created_at: j.created_at.toISOString(),
    triggered_at: j.triggered_at?.toISOString() ?? null,
    finished_at: j.finished_at?.toISOString() ?? null,
  };
}
