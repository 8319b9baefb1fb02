import { createProjectSchema, updateProjectSchema } from "./projects.schemas";
import { type Json, type Ok, projectIdParam } from "../docs/openapi-parts";

const projectId = projectIdParam;

/** The projects and keys routes, for adminOpenApi. */
export function projectPaths(json: Json, ok: Ok) {
  return {
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
  };
}
