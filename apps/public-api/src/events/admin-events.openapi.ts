import type { z } from "zod";
import { listEventsQuery } from "@emailsvc/contracts";

type Ok = (description: string) => { description: string };
const projectId = {
  name: "projectId",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
};

const queryParams = (schema: z.ZodObject) =>
  Object.keys(schema.shape).map((name) => ({
    name,
    in: "query",
    required: false,
    schema: { type: "string" },
  }));

/** The events listing of the admin API, for adminOpenApi. */
export function eventPaths(ok: Ok) {
  return {
    "/admin/projects/{projectId}/events": {
      parameters: [projectId],
      get: {
        summary: "A project's custom events (the filters and pages of GET /v1/events)",
        parameters: queryParams(listEventsQuery),
        responses: { 200: ok("events") },
      },
    },
  };
}
