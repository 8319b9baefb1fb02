import { sendTestTemplateSchema, templateSchema, updateTemplateSchema } from "./templates.schemas";
import { type Json, type Ok, projectIdParam } from "../docs/openapi-parts";

const projectId = projectIdParam;

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
    "/admin/projects/{projectId}/templates/{templateId}/send-test": {
      parameters: [
        projectId,
        { name: "templateId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
      ],
      post: {
        summary:
          "Send the stored template to one address with sample variables (members): rendered as sends render it, " +
          "subject prefixed [Test], a test send unless mode is live",
        requestBody: json(sendTestTemplateSchema),
        responses: {
          200: ok("email_id, activity_id, mode; or skipped: true when the address is suppressed"),
          400: ok("invalid address, no verified sender, or content past the render limits"),
          403: ok("the sender is not verified (code SENDER_NOT_VERIFIED), or a viewer"),
          404: ok("no such template"),
        },
      },
    },
  };
}
