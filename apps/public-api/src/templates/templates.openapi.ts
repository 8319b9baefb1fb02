import type { z } from "zod";
import { templateSchema, updateTemplateSchema } from "./templates.schemas";

type Json = (schema: z.ZodType) => { content: { "application/json": { schema: unknown } } };
type Ok = (description: string) => { description: string };

const projectId = {
  name: "projectId",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
};

/** The template routes, for adminOpenApi. */
export function templatePaths(json: Json, ok: Ok) {
  return {
    "/admin/projects/{projectId}/templates": {
      parameters: [projectId],
      get: { summary: "List templates", responses: { 200: ok("templates") } },
      post: {
        summary: "Create a template",
        requestBody: json(templateSchema),
        responses: { 201: ok("template") },
      },
    },
    "/admin/projects/{projectId}/templates/{templateId}": {
      parameters: [
        projectId,
        { name: "templateId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
      ],
      put: {
        summary: "Update a template",
        requestBody: json(updateTemplateSchema),
        responses: { 200: ok("template") },
      },
    },
  };
}
