import { leadTagsSchema, leadTimelineQuery, leadUpdateSchema, listLeadsQuery } from "@emailsvc/contracts";
import { type Json, type Ok, projectIdParam, queryParams } from "../docs/openapi-parts";

const projectId = projectIdParam;
const leadId = {
  name: "leadId",
  in: "path",
  required: true,
  description: "the lead's id, or its email",
  schema: { type: "string" },
};

/** The leads routes of the admin API, for adminOpenApi. */
export function leadPaths(json: Json, ok: Ok) {
  return {
    "/admin/projects/{projectId}/leads": {
      parameters: [projectId],
      get: {
        summary: "A project's leads (the filters and pages of GET /v1/leads; total_exact false past 10,000)",
        parameters: [
          ...queryParams(listLeadsQuery),
          {
            name: "attributes",
            in: "query",
            required: false,
            description: "attribute equality: attributes[name]=value",
            style: "deepObject",
            explode: true,
            schema: { type: "object", additionalProperties: { type: "string" } },
          },
        ],
        responses: { 200: ok("leads") },
      },
    },
    "/admin/projects/{projectId}/leads/{leadId}": {
      parameters: [projectId, leadId],
      get: { summary: "A lead with the segments it is in", responses: { 200: ok("lead") } },
      put: {
        summary: "Change a lead (the body of PUT /v1/leads/:id: each given field replaces the lead's)",
        requestBody: json(leadUpdateSchema),
        responses: { 200: ok("lead"), 409: ok("another lead has that email") },
      },
      delete: {
        summary: "Delete a lead, its events and memberships (its sending log and suppressions stay)",
        responses: { 200: ok("deleted") },
      },
    },
    "/admin/projects/{projectId}/leads/{leadId}/tags": {
      parameters: [projectId, leadId],
      post: { summary: "Tag a lead", requestBody: json(leadTagsSchema), responses: { 200: ok("tags") } },
      delete: { summary: "Untag a lead", requestBody: json(leadTagsSchema), responses: { 200: ok("tags") } },
    },
    "/admin/projects/{projectId}/leads/{leadId}/timeline": {
      parameters: [projectId, leadId],
      get: {
        summary: "A lead's events, emails (with status), replies and orders, newest first, keyset-paged",
        parameters: queryParams(leadTimelineQuery),
        responses: { 200: ok("items and next_cursor") },
      },
    },
  };
}
