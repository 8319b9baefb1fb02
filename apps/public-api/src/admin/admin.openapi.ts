import { z } from "zod";
import { createSegmentSchema, listEventsQuery, listLeadsQuery } from "@emailsvc/contracts";
import {
  addSenderSchema,
  createProjectSchema,
  templateSchema,
  updateProjectSchema,
  updateTemplateSchema,
} from "./admin.schemas";
import { campaignPaths } from "../campaigns/admin-campaigns.openapi";
import { shopPaths } from "../shops/admin-shops.openapi";
import { inboundPaths } from "../threads/admin-inbound.routes";
import { importPaths } from "../imports/imports.openapi";
import { accountPaths } from "../accounts/accounts.openapi";
import { activityPaths } from "../activity/activity.routes";
import { webhookPaths } from "../webhooks/webhooks.openapi";
import { suppressionPaths } from "../suppressions/suppressions.openapi";

const json = (schema: z.ZodType) => ({
  content: {
    "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
  },
});
const ok = (description: string) => ({ description });
/** The answers every route can give besides its success (body `{ success: false, error }`). */
const errors = {
  400: ok("invalid input"),
  401: ok("missing or wrong admin token"),
  404: ok("not found"),
  413: ok("body too large"),
};
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

/** OpenAPI 3.1 description of the admin API, with request bodies generated from the same zod schemas. */
export function adminOpenApi() {
  const doc = {
    openapi: "3.1.0",
    info: { title: "Email service admin API (internal)", version: "1.0.0" },
    components: { securitySchemes: { adminToken: { type: "http", scheme: "bearer" } } },
    security: [{ adminToken: [] }],
    paths: {
      "/admin/projects": {
        get: {
          summary: "List projects, oldest first, a page at a time (keyset pagination)",
          parameters: [
            {
              name: "limit",
              in: "query",
              required: false,
              description: "projects per page, 1 to 500",
              schema: { type: "integer", minimum: 1, maximum: 500, default: 500 },
            },
            {
              name: "cursor",
              in: "query",
              required: false,
              description: "the next_cursor of the previous page; none: the first page",
              schema: { type: "string" },
            },
          ],
          responses: {
            200: ok(
              "{ success, projects, next_cursor }: next_cursor asks for the page after this one (the `cursor` " +
                "parameter), null on the last page",
            ),
          },
        },
        post: {
          summary: "Create a project with a live and a test key",
          requestBody: json(createProjectSchema),
          responses: { 201: ok("project and plaintext keys") },
        },
      },
      "/admin/projects/{projectId}": {
        parameters: [projectId],
        get: {
          summary: "Project settings",
          responses: {
            200: ok(
              "project; webhook_failing_since / webhook_dev_failing_since: since when the receiver at webhook_url / " +
                "webhook_url_dev has been failing (deliveries deferred and probed one at a time), null when healthy",
            ),
            404: ok("not found"),
          },
        },
        patch: {
          summary:
            "Update webhook URLs, default_timezone, on_send_unknown, postal_address, require_signed_shop_webhooks, " +
            "send_rate_limit, daily_send_cap, test_keys_test_data_only, name",
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
          { name: "mode", in: "path", required: true, schema: { type: "string", enum: ["live", "test"] } },
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
          responses: { 201: ok("sender"), 409: ok("the address or its domain belongs to another project") },
        },
      },
      "/admin/projects/{projectId}/segments": {
        parameters: [projectId],
        get: { summary: "Segments with their live member counts", responses: { 200: ok("segments") } },
        post: {
          summary:
            "Create a static segment (members added through POST /v1/leads/:id/segments) or a dynamic one (a filter " +
            "over attributes, tags, subscription and event history, compiled to parameterised SQL)",
          requestBody: json(createSegmentSchema),
          responses: { 201: ok("segment with member_count"), 409: ok("a segment of that name exists") },
        },
      },
      "/admin/projects/{projectId}/segments/{segmentId}": {
        parameters: [
          projectId,
          { name: "segmentId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
        ],
        get: { summary: "A segment with its live member count", responses: { 200: ok("segment") } },
        delete: { summary: "Delete a segment (its leads stay)", responses: { 200: ok("deleted") } },
      },
      "/admin/projects/{projectId}/leads": {
        parameters: [projectId],
        get: {
          summary: "A project's leads (the filters and pages of GET /v1/leads)",
          parameters: queryParams(listLeadsQuery),
          responses: { 200: ok("leads") },
        },
      },
      "/admin/projects/{projectId}/events": {
        parameters: [projectId],
        get: {
          summary: "A project's custom events (the filters and pages of GET /v1/events)",
          parameters: queryParams(listEventsQuery),
          responses: { 200: ok("events") },
        },
      },
      ...campaignPaths(json, ok),
      ...shopPaths(json, ok),
      ...inboundPaths(ok),
      ...importPaths(json, ok),
      ...accountPaths(json, ok),
      ...activityPaths(ok),
      ...webhookPaths(ok),
      ...suppressionPaths(ok),
      "/admin/webhook-deliveries": {
        get: {
          summary: "A project's latest 200 client webhook deliveries, optionally of one status",
          parameters: [
            { name: "project_id", in: "query", required: true, schema: { type: "string", format: "uuid" } },
            {
              name: "status",
              in: "query",
              required: false,
              schema: { type: "string", enum: ["pending", "failed", "succeeded", "exhausted", "skipped"] },
            },
          ],
          responses: { 200: ok("deliveries") },
        },
      },
      "/admin/webhook-deliveries/{deliveryId}/redeliver": {
        parameters: [
          { name: "deliveryId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
        ],
        post: {
          summary: "Send a finished delivery again (the project needs a URL for its mode)",
          responses: { 200: ok("pending again"), 409: ok("still being delivered, or no URL for its mode") },
        },
      },
    },
  };
  for (const item of Object.values(doc.paths) as Record<string, unknown>[])
    for (const op of Object.values(item))
      if (op && typeof op === "object" && "responses" in op)
        (op as { responses: Record<string, unknown> }).responses = {
          ...errors,
          ...(op as { responses: object }).responses,
        };
  return doc;
}
