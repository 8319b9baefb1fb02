import { z } from "zod";
import {
  addSenderSchema,
  createProjectSchema,
  templateSchema,
  updateProjectSchema,
  updateTemplateSchema,
} from "./admin.schemas";

const json = (schema: z.ZodType) => ({
  content: {
    "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
  },
});
const ok = (description: string) => ({ description });
const projectId = {
  name: "projectId",
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid" },
};

/** OpenAPI 3.1 description of the admin API, with request bodies generated from the same zod schemas. */
export function adminOpenApi() {
  return {
    openapi: "3.1.0",
    info: { title: "Email service admin API (internal)", version: "1.0.0" },
    components: { securitySchemes: { adminToken: { type: "http", scheme: "bearer" } } },
    security: [{ adminToken: [] }],
    paths: {
      "/admin/projects": {
        get: { summary: "List projects", responses: { 200: ok("projects") } },
        post: {
          summary: "Create a project with a live and a test key",
          requestBody: json(createProjectSchema),
          responses: { 201: ok("project and plaintext keys") },
        },
      },
      "/admin/projects/{projectId}": {
        parameters: [projectId],
        get: { summary: "Project settings", responses: { 200: ok("project"), 404: ok("not found") } },
        patch: {
          summary: "Update webhook URLs, default_timezone, name",
          requestBody: json(updateProjectSchema),
          responses: { 200: ok("project") },
        },
      },
      "/admin/projects/{projectId}/keys": {
        parameters: [projectId],
        get: { summary: "Show the active live and test keys", responses: { 200: ok("keys") } },
      },
      "/admin/projects/{projectId}/keys/{mode}/regenerate": {
        parameters: [
          projectId,
          { name: "mode", in: "path", required: true, schema: { enum: ["live", "test"] } },
        ],
        post: {
          summary: "Regenerate one mode's key; the previous key of that mode stops working at once",
          responses: { 200: ok("new key") },
        },
      },
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
      "/admin/projects/{projectId}/senders": {
        parameters: [projectId],
        post: {
          summary: "Add a verified sender address (local use)",
          requestBody: json(addSenderSchema),
          responses: { 201: ok("sender") },
        },
      },
    },
  };
}
