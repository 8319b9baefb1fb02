import { Router } from "express";
import {
  hasControlCharacter,
  IMPORT_STATUSES,
  importOptionsSchema,
  isUuid,
  projectIdOf,
  type ProjectId,
} from "@emailsvc/contracts";
import { cancelImportJob, findImportJob, listImportJobs } from "@emailsvc/db";
import { AppError, ErrorCode, jsonBody, parseInput } from "@emailsvc/http";
import { z } from "zod";
import type { ImportDeps } from "./import-deps";
import { importJobView } from "./import-view";
import { previewImport } from "./preview-import";
import { setImportOptions } from "./set-import-options";
import { uploadImport } from "./upload-import";
import { writeErrorReport } from "./write-error-report";

const listQuery = z.object({
  status: z
    .enum(IMPORT_STATUSES, { error: `status must be one of ${IMPORT_STATUSES.join(", ")}` })
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** The upload's name: `?filename=`, else the Content-Disposition filename, else "upload". */
function fileNameOf(query: unknown, disposition: string | undefined): string {
  const q = (query as { filename?: unknown }).filename;
  const fromHeader = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] : undefined;
  const name = typeof q === "string" && q.trim() ? q : fromHeader ? decodeURIComponent(fromHeader) : "upload";
  return [...name]
    .filter((c) => !hasControlCharacter(c))
    .join("")
    .slice(0, 255);
}

/**
 * Admin: a project's contact imports. Mounted before the admin API's JSON body parser: the upload's body is the
 * file itself (any content type), streamed to S3.
 *   POST   /projects/:projectId/imports?filename=x.csv      upload → 201 { jobId, status: "pending", job }
 *   GET    /projects/:projectId/imports                     list (status, limit)
 *   GET    /projects/:projectId/imports/:jobId              state, progress, counts
 *   PATCH  /projects/:projectId/imports/:jobId              options while pending (mode, tags, segment, mapping, …)
 *   GET    /projects/:projectId/imports/:jobId/preview      the first 20 rows as they would be imported
 *   GET    /projects/:projectId/imports/:jobId/errors.csv   the error report
 *   POST   /projects/:projectId/imports/:jobId/cancel       pending or processing → cancelled
 * Starting a job is POST /trigger-job (spec 4.8).
 */
export function importsRouter(deps: ImportDeps): Router {
  const r = Router();
  // The admin API's project resolution: a URL's id becomes a ProjectId once the project is found.
  const project = async (projectId: string): Promise<ProjectId> => {
    const found =
      isUuid(projectId) && (await deps.db.prisma.project.findUnique({ where: { id: projectId } }));
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Project not found");
    return projectIdOf(projectId);
  };
  const job = async (projectId: string, jobId: string) => {
    const found = await findImportJob(deps.db, await project(projectId), jobId);
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Import job not found");
    return found;
  };

  r.post("/projects/:projectId/imports", async (req, res) => {
    const projectId = await project(req.params.projectId);
    const length = req.header("content-length");
    const created = await uploadImport(deps, projectId, {
      fileName: fileNameOf(req.query, req.header("content-disposition")),
      body: req,
      ...(length !== undefined ? { declaredBytes: Number(length) } : {}),
      ...(req.header("content-type") ? { contentType: req.header("content-type")! } : {}),
    });
    res
      .status(201)
      .json({ success: true, jobId: created.id, status: created.status, job: importJobView(created) });
  });

  r.get("/projects/:projectId/imports", async (req, res) => {
    const q = parseInput(listQuery, req.query);
    const rows = await listImportJobs(deps.db, await project(req.params.projectId), q);
    res.json({ success: true, jobs: rows.map(importJobView) });
  });

  r.get("/projects/:projectId/imports/:jobId", async (req, res) => {
    res.json({ success: true, job: importJobView(await job(req.params.projectId, req.params.jobId)) });
  });

  r.patch("/projects/:projectId/imports/:jobId", ...jsonBody({ limit: "256kb" }), async (req, res) => {
    const body = parseInput(importOptionsSchema, req.body ?? {});
    const { projectId, jobId } = req.params as Record<string, string>;
    const updated = await setImportOptions(deps, await project(projectId!), jobId!, body);
    res.json({ success: true, job: importJobView(updated) });
  });

  r.get("/projects/:projectId/imports/:jobId/preview", async (req, res) => {
    const projectId = await project(req.params.projectId);
    res.json({ success: true, ...(await previewImport(deps, projectId, req.params.jobId)) });
  });

  r.get("/projects/:projectId/imports/:jobId/errors.csv", async (req, res) => {
    await writeErrorReport(deps, await project(req.params.projectId), req.params.jobId, res);
  });

  r.post("/projects/:projectId/imports/:jobId/cancel", async (req, res) => {
    const found = await job(req.params.projectId, req.params.jobId);
    const cancelled = await cancelImportJob(deps.db, found.project_id, found.id);
    if (!cancelled)
      throw new AppError(ErrorCode.CONFLICT, `The import job is already ${found.status}`, {
        extra: { jobId: found.id, status: found.status },
      });
    res.json({ success: true, job: importJobView(cancelled) });
  });

  return r;
}
