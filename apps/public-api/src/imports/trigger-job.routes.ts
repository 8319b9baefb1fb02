import { Router } from "express";
import { triggerJobId } from "@emailsvc/contracts";
import { triggerImportJob } from "@emailsvc/db";
import { AppError, ErrorCode, jsonBody } from "@emailsvc/http";
import type { ImportDeps } from "./import-deps";

/**
 * POST /trigger-job (spec 4.8, internal port, no key): starts a contact import job.
 * - 200 `{ success: true, message, jobId, status }`: a pending job is now `processing` (its command is in the
 *   outbox, committed with the state); a job already processing, completed, failed or cancelled is left as it is,
 *   and the message says so with its status (triggering twice never imports twice);
 * - 400 `jobId is required` / `jobId must be a UUID`; 404 `Import job not found`; 500 on an internal error.
 */
export function triggerJobRouter(deps: Pick<ImportDeps, "db" | "kickOutbox">): Router {
  const r = Router();
  r.post("/trigger-job", ...jsonBody({ limit: "16kb" }), async (req, res) => {
    const parsed = triggerJobId(req.body);
    if ("error" in parsed) throw new AppError(ErrorCode.VALIDATION, parsed.error);
    const outcome = await triggerImportJob(deps.db, parsed.jobId);
    if (!outcome.found) throw new AppError(ErrorCode.NOT_FOUND, "Import job not found");
    if (outcome.started) deps.kickOutbox();
    res.json({
      success: true,
      message: outcome.started
        ? "Import job started"
        : `Import job is already ${outcome.status}; nothing was changed`,
      jobId: parsed.jobId,
      status: outcome.status,
    });
  });
  return r;
}
