import type { ProjectId } from "@emailsvc/contracts";
import { once } from "node:events";
import type { Writable } from "node:stream";
import { findImportJob, rejectedImportRows } from "@emailsvc/db";
import { AppError, ErrorCode } from "@emailsvc/http";
import { errorReportWriter } from "@emailsvc/imports";
import type { ImportDeps } from "./import-deps";

const PAGE = 1_000;

/**
 * The job's rejected rows as CSV (line, reason, then the file's columns, formula cells escaped), streamed page by
 * page from the database into `out`: a report of a million rows never sits in memory.
 */
export async function writeErrorReport(
  deps: Pick<ImportDeps, "db">,
  projectId: ProjectId,
  jobId: string,
  out: Writable & { setHeader?(name: string, value: string): unknown },
): Promise<void> {
  const job = await findImportJob(deps.db, projectId, jobId);
  if (!job) throw new AppError(ErrorCode.NOT_FOUND, "Import job not found");
  const base = job.file_name.replace(/\.[^.]*$/, "").replace(/[^\w.-]+/g, "_") || "import";
  out.setHeader?.("Content-Type", "text/csv; charset=utf-8");
  out.setHeader?.("Content-Disposition", `attachment; filename="${base}-errors.csv"`);
  const csv = errorReportWriter(job.columns);
  csv.pipe(out);
  let after = 0;
  for (;;) {
    const page = await rejectedImportRows(deps.db, projectId, jobId, after, PAGE);
    for (const r of page) {
      if (!csv.write([String(r.line), r.reason, ...r.cells])) await once(csv, "drain");
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.line;
  }
  csv.end();
  await once(out, "finish");
}
