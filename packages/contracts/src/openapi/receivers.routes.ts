import { z } from "zod";
import { badRequest, internalError, type RouteDoc } from "./builder";

const activityId = {
  id: { description: "The activity (one email to one recipient)", format: "uuid" as const },
};
const signed = z.object({ sig: z.string().describe("The link's signature, written at send time") });

export const receiverRoutes: RouteDoc[] = [
  {
    service: "notification-ingest",
    method: "post",
    path: "/webhooks/provider",
    tag: "Receivers",
    auth: "none",
    summary: "SES notifications over SNS (spec 4.9)",
    description:
      "The SNS message as `text/plain` JSON. Its signature is verified (certificate host pinned to AWS), the " +
      "topic must be allowed (`SNS_TOPIC_ARNS`), a SubscriptionConfirmation is confirmed only to an AWS SNS host.",
    body: z
      .object({ Type: z.string(), MessageId: z.string(), TopicArn: z.string(), Message: z.string() })
      .passthrough(),
    bodyContentType: "text/plain",
    responses: {
      200: {
        description: "Queued, confirmed or acknowledged",
        schema: z.object({ success: z.literal(true), message: z.string().optional() }),
      },
      400: badRequest("Invalid JSON, or a SubscribeURL that is not an AWS SNS URL"),
      403: badRequest("Invalid SNS signature or topic not allowed"),
      413: badRequest("Body too large"),
      500: internalError,
    },
  },
  {
    service: "notification-ingest",
    method: "get",
    path: "/t/o/{id}",
    tag: "Tracking",
    auth: "none",
    summary: "Open pixel; the first GET sets `opened_first_at`",
    pathParams: activityId,
    responses: { 200: { description: "A 1x1 GIF, whatever the id", contentType: "image/gif" } },
  },
  {
    service: "notification-ingest",
    method: "get",
    path: "/t/c/{id}",
    tag: "Tracking",
    auth: "none",
    summary: "Click redirect to the signed URL; the first GET sets `clicked_first_at`",
    pathParams: activityId,
    query: z.object({
      url: z.string().describe("The original link"),
      sig: z.string().describe("Its signature"),
    }),
    responses: {
      302: { description: "Redirect to `url`", headers: { Location: "The original URL" } },
      400: badRequest("Invalid or unsigned tracking link"),
    },
  },
  {
    service: "notification-ingest",
    method: "get",
    path: "/t/u/{id}",
    tag: "Tracking",
    auth: "none",
    summary: "Unsubscribe confirmation page (a GET never unsubscribes: link scanners follow GETs)",
    pathParams: activityId,
    query: signed,
    responses: {
      200: { description: "A page with a button that POSTs", contentType: "text/html" },
      400: { description: "Unknown or unsigned link", contentType: "text/html" },
    },
  },
  {
    service: "notification-ingest",
    method: "post",
    path: "/t/u/{id}",
    tag: "Tracking",
    auth: "none",
    summary: "One-click unsubscribe (RFC 8058 `List-Unsubscribe=One-Click`)",
    pathParams: activityId,
    query: signed,
    responses: {
      200: {
        description: "Unsubscribed; the recipient is suppressed as `unsubscribed`",
        contentType: "text/html",
      },
      400: { description: "Unknown or unsigned link", contentType: "text/html" },
    },
  },
];
