import { z } from "zod";
import { listLeadsQuery } from "@emailsvc/contracts";

type Json = (schema: z.ZodType) => { content: { "application/json": { schema: unknown } } };
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

/** The leads routes of the admin API, for adminOpenApi. */
export function leadPaths(json: Json, ok: Ok) {
  return {
    "/admin/projects/{projectId}/leads": {
      parameters: [projectId],
      get: {
        summary: "A project's leads (the filters and pages of GET /v1/leads)",
        parameters: queryParams(listLeadsQuery),
        responses: { 200: ok("leads") },
      },
    },
  };
}
