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
  {
    service: "inbound-mail",
    method: "post",
    path: "/api/inbound/provider",
    tag: "Receivers",
    auth: "none",
    summary: "SES receiving (incoming email) notifications over SNS (spec 4.9)",
    description:
      "The SNS message as `text/plain` JSON, verified as on `/webhooks/provider` (topics in " +
      "`INBOUND_SNS_TOPIC_ARNS`). A `Received` notification (S3 action: the MIME in the inbound bucket; SNS " +
      "action: inline) is stored before the answer and processed by a consumer, so a new one answers " +
      "`threadId: null, projectId: null, status: queued`; SNS redelivering one answers what became of it.",
    body: z
      .object({ Type: z.string(), MessageId: z.string(), TopicArn: z.string(), Message: z.string() })
      .passthrough(),
    bodyContentType: "text/plain",
    responses: {
      200: {
        description: "Stored (queued), already known, confirmed or acknowledged",
        schema: z.object({
          success: z.literal(true),
          messageId: z.string().optional().describe("SES's message id"),
          threadId: z.uuid().nullable().optional(),
          projectId: z.uuid().nullable().optional(),
          status: z.enum(["queued", "processed", "duplicate", "refused", "failed"]).optional(),
          message: z.string().optional(),
        }),
      },
      400: badRequest("Invalid JSON, not a Received notification, no object or content"),
      403: badRequest("Invalid SNS signature or topic not allowed"),
      413: badRequest("Body too large"),
      500: internalError,
    },
  },
  {
    service: "inbound-mail",
    method: "get",
    path: "/api/inbound/attachments/{id}",
    tag: "Receivers",
    auth: "none",
    summary: "An inbound attachment's signed link (`download_url`, valid 7 days)",
    description:
      "Redirects to a presigned S3 URL made at that moment (valid a few minutes): a presigned URL handed out " +
      "for 7 days would die with the temporary credentials that signed it.",
    pathParams: { id: { description: "The attachment", format: "uuid" } },
    query: z.object({
      expires: z.string().describe("Unix seconds after which the link is refused"),
      sig: z.string().describe("HMAC-SHA256 of the id and `expires`"),
    }),
    responses: {
      302: { description: "Redirect to the file", headers: { Location: "A fresh presigned S3 URL" } },
      403: badRequest("Invalid signature"),
      404: badRequest("No such attachment"),
      410: badRequest("The link has expired"),
    },
  },
  {
    service: "shop-ingest",
    method: "post",
    path: "/webhooks/shop/{topic}",
    tag: "Receivers",
    auth: "none",
    summary: "E-commerce webhooks: cart/update, checkout/create, order/create (spec 4.9)",
    description:
      "`{topic}` is `cart/update`, `checkout/create` or `order/create` written as path segments " +
      "(`/webhooks/shop/order/create`; the platform's plural names `orders/create` are accepted too). The body is " +
      "the platform's resource as JSON. Checked in the order of the answers: 400 for the topic, an `x-project-id` " +
      "that is not an existing project's UUID, an `x-shop-shop-domain` that is not a domain name, the JSON and the " +
      "topic's required fields, a missing `x-shop-webhook-id`; then 401 (one answer, `Invalid HMAC signature`) " +
      "for a domain connected to another project, an `x-shop-hmac-sha256` that is not the base64 HMAC-SHA256 of " +
      "the raw body with the shop's secret (or, during a rotation's grace, its previous one) where the shop has " +
      "one, or an unsigned delivery to a project with `require_signed_shop_webhooks`; then 409. A domain no " +
      "project has is connected to the `x-project-id` project without a secret, and its deliveries are accepted " +
      "unsigned (spec 7.9 checks the signature only when a secret is configured); an unsigned checkout starts no " +
      "abandoned-cart emails unless the operator allows them for the shop. The delivery is stored with its queue " +
      "message before the 200. A webhook id the shop already delivered is a 409, or a 200 with `duplicate: true` " +
      "for a shop set to answer duplicates with 200 (the platform retries every non-2xx answer and may drop a " +
      "subscription that keeps failing).",
    pathParams: { topic: { description: "cart/update, checkout/create or order/create" } },
    headers: {
      "x-project-id": {
        description: "The project the shop is connected to (or is to be connected to, for a new domain)",
        required: true,
      },
      "x-shop-shop-domain": { description: "The shop's domain", required: true },
      "x-shop-hmac-sha256": {
        description: "base64 HMAC-SHA256 of the raw body (when the shop has a secret)",
      },
      "x-shop-webhook-id": {
        description: "The delivery's id, the same on every retry (de-duplication)",
        required: true,
      },
    },
    body: z.looseObject({}),
    responses: {
      200: {
        description: "Stored and queued (or, for a shop so set, a duplicate acknowledged)",
        schema: z.object({
          success: z.literal(true),
          message: z.string(),
          duplicate: z.literal(true).optional(),
        }),
      },
      400: badRequest(
        "Unsupported topic, x-project-id not an existing project, x-shop-shop-domain not a domain, invalid JSON, " +
          "a missing or invalid field (named), no webhook id",
      ),
      401: badRequest(
        "Invalid HMAC signature: a bad signature where the shop has a secret, a domain connected to another " +
          "project, or an unsigned delivery where the project requires signed ones",
      ),
      409: badRequest("Duplicate webhook: this webhook id was already received"),
      413: badRequest("Body too large (2 MB)"),
      500: internalError,
    },
  },
];
