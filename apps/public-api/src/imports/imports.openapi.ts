import type { z } from "zod";
import { IMPORT_STATUSES, importOptionsSchema } from "@emailsvc/contracts";
import { type Ok } from "../docs/openapi-parts";

type Json = (schema: z.ZodType) => unknown;

const path = (name: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
});

/** The contact import routes of the admin API (issue 25), for adminOpenApi. POST /trigger-job is spec 4.8's. */
export function importPaths(json: Json, ok: Ok) {
  const job = [path("projectId"), path("jobId")];
  return {
    "/admin/projects/{projectId}/imports": {
      parameters: [path("projectId")],
      get: {
        summary: "The project's import jobs, newest first",
        parameters: [
          { name: "status", in: "query", required: false, schema: { type: "string", enum: IMPORT_STATUSES } },
          {
            name: "limit",
            in: "query",
            required: false,
            schema: { type: "integer", minimum: 1, maximum: 200 },
          },
        ],
        responses: { 200: ok("jobs") },
      },
      post: {
        summary:
          "Upload a CSV or XLSX file (the body itself, streamed to S3 under IMPORT_MAX_FILE_BYTES): a pending job with the mapping its header gives",
        parameters: [{ name: "filename", in: "query", required: false, schema: { type: "string" } }],
        requestBody: {
          content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
        },
        responses: {
          201: ok("{ success, jobId, status: pending, job }"),
          400: ok(
            "not CSV or XLSX, empty, only a header, no email column: the job is failed with the reason",
          ),
          413: ok("over the cap: the job is failed"),
        },
      },
    },
    "/admin/projects/{projectId}/imports/{jobId}": {
      parameters: job,
      get: {
        summary: "A job: state, file, options, mapping, progress and counts",
        responses: { 200: ok("job") },
      },
      patch: {
        summary: "Options of a pending job (mode, tags, segment, consent, mapping)",
        requestBody: json(importOptionsSchema),
        responses: { 200: ok("job"), 409: ok("the job is no longer pending") },
      },
    },
    "/admin/projects/{projectId}/imports/{jobId}/preview": {
      parameters: job,
      get: { summary: "The first 20 rows as they would be imported", responses: { 200: ok("rows") } },
    },
    "/admin/projects/{projectId}/imports/{jobId}/errors.csv": {
      parameters: job,
      get: {
        summary: "The error report: line, reason and the row's cells (formula cells escaped)",
        responses: { 200: { description: "CSV", content: { "text/csv": { schema: { type: "string" } } } } },
      },
    },
    "/admin/projects/{projectId}/imports/{jobId}/cancel": {
      parameters: job,
      post: {
        summary: "Cancel a pending or processing job",
        responses: { 200: ok("job"), 409: ok("already ended") },
      },
    },
  };
}
