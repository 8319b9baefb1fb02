import { listEventsQuery } from "@emailsvc/contracts";
import { type Ok, projectIdParam, queryParams } from "../docs/openapi-parts";

const projectId = projectIdParam;

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
