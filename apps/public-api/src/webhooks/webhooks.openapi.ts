import { listDeliveriesQuery } from "./webhooks.routes";

/** The webhooks page's routes, for adminOpenApi. */
export function webhookPaths(ok: (d: string) => { description: string }) {
  const id = (name: string) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", format: "uuid" },
  });
  return {
    "/admin/projects/{projectId}/webhook-deliveries": {
      parameters: [id("projectId")],
      get: {
        summary:
          "The project's client webhook deliveries, newest first: live or test (mode), by status (comma-separated) " +
          "and event, keyset-paged (cursor)",
        parameters: Object.keys(listDeliveriesQuery.shape).map((name) => ({
          name,
          in: "query",
          required: false,
          schema: { type: "string" },
        })),
        responses: {
          200: ok("deliveries, next_cursor (null on the last page)"),
          400: ok("a bad filter or cursor"),
        },
      },
    },
    "/admin/projects/{projectId}/webhook-deliveries/{deliveryId}": {
      parameters: [id("projectId"), id("deliveryId")],
      get: {
        summary:
          "One delivery with the body it sends and its attempts (status code, duration, error, the first 500 " +
          "characters of the answer)",
        responses: { 200: ok("delivery, attempts"), 404: ok("not this project's") },
      },
    },
    "/admin/projects/{projectId}/webhook-deliveries/{deliveryId}/redeliver": {
      parameters: [id("projectId"), id("deliveryId")],
      post: {
        summary: "Send a finished delivery of this project again (the project needs a URL for its mode)",
        responses: {
          200: ok("pending again"),
          404: ok("not this project's"),
          409: ok("still being delivered, or no URL for its mode"),
        },
      },
    },
    "/admin/projects/{projectId}/webhook-endpoints": {
      parameters: [id("projectId")],
      get: {
        summary:
          "The project's four webhook URLs (events and inbound replies, live and test), each with since when its " +
          "receiver has been failing (null: healthy)",
        responses: { 200: ok("endpoints"), 404: ok("no such project") },
      },
    },
  };
}

/** The CLI's older delivery routes (legacyDeliveriesRouter), for adminOpenApi. */
export function legacyDeliveryPaths(ok: (d: string) => { description: string }) {
  return {
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
  };
}
