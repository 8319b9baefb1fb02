import { z } from "zod";
import { sendEmailBody, sendTemplateEmailBody } from "../http/send-requests";
import { badRequest, internalError, notFound, type RouteDoc, unauthorized } from "./builder";

const idempotencyKey = {
  "Idempotency-Key": {
    description:
      "At most 128 characters. The first answer is replayed for 24 h to an identical request with the same key " +
      "(header `Idempotency-Replayed: true`); a different body with the same key gets 422, one still in flight 409",
  },
};

const accepted = z.object({
  message: z.string(),
  email_id: z.uuid(),
  project_id: z.uuid(),
});
const skipped = z.object({
  message: z.string(),
  skipped: z.literal(true),
  suppression_reason: z.string().describe("`bounce`, `complaint` or `unsubscribed`"),
  recipient: z.string(),
});
const dryRun = z.object({
  dry_run: z.literal(true),
  test_mode: z.boolean(),
  would_send: z.object({
    to: z.array(z.string()),
    from: z.string(),
    subject: z.string(),
    html_preview: z.string(),
    variables_used: z.array(z.string()),
  }),
});

/** Spec 4.3 body, as public-api parses it (messages of 4.3 for each missing field). */
export const sendBatchBody = z.object({
  sender: z.string().describe("Verified sender address"),
  senderName: z.string().optional(),
  subject: z.string().optional().describe("Required unless templateId"),
  html: z.string().optional().describe("Required unless templateId"),
  templateId: z.uuid().optional(),
  email_type: z
    .string()
    .optional()
    .describe("Default `marketing`; `transactional` sends carry no unsubscribe"),
  scheduled_at: z.string().optional().describe("ISO 8601 date-time"),
  timezone: z.union([z.string(), z.number()]).optional(),
  recipients: z
    .array(z.object({ email: z.string(), data: z.record(z.string(), z.unknown()).optional() }))
    .min(1)
    .max(12_500),
});

const batchAccepted = z.object({
  batch_id: z.uuid(),
  total: z.number().int(),
  queued: z.number().int(),
  scheduled: z.boolean(),
  scheduled_for: z.string().nullable(),
  activities: z.array(
    z.object({
      email: z.string(),
      activity_id: z.uuid().nullable(),
      skipped: z.boolean().optional(),
      suppression_reason: z.string().optional(),
    }),
  ),
});

const scheduledSend = z.object({
  success: z.literal(true),
  scheduled_send_id: z.uuid(),
  status: z.enum(["scheduled", "sending", "sent", "cancelled", "failed"]),
  scheduled_for: z.string(),
  timezone: z.string(),
  scheduled_for_local: z.string(),
});

const id = { id: { description: "Scheduled send id", format: "uuid" as const } };

export const sendRoutes: RouteDoc[] = [
  {
    service: "public-api",
    method: "post",
    path: "/v1/send-email",
    tag: "Sending",
    summary: "Send one email (spec 4.1)",
    description:
      "To one address or up to 50, with cc/bcc (10 each), attachments (10, 10 MB in all, PDF or iCalendar), " +
      "`{{variable}}` data and `dry_run`.",
    headers: idempotencyKey,
    body: sendEmailBody,
    responses: {
      200: {
        description: "Accepted, skipped (suppressed recipient) or a dry run",
        schema: z.union([accepted, skipped, dryRun]),
      },
      400: badRequest(
        "`Missing required fields: recipient_email, sender_email, html_body`, or a field's own error",
      ),
      401: unauthorized,
      403: badRequest("Sender not verified (`code: SENDER_NOT_VERIFIED`)"),
      413: badRequest("Body or attachments too large"),
      429: badRequest("Monthly quota reached"),
      500: internalError,
    },
  },
  {
    service: "public-api",
    method: "post",
    path: "/v1/send-template-email",
    tag: "Sending",
    summary: "Send one email from a stored template (spec 4.2)",
    headers: idempotencyKey,
    body: sendTemplateEmailBody,
    responses: {
      200: {
        description: "Accepted (or skipped, or a dry run)",
        schema: z.union([
          accepted.extend({
            template_id: z.uuid(),
            template_internal_id: z.number().int(),
            variables_used: z.array(z.string()),
            used_cached_html: z.boolean(),
          }),
          skipped,
          dryRun,
        ]),
      },
      400: badRequest(
        "`Missing required fields: recipient_email, sender_email, html_body (or template_id)` or " +
          "`template_internal_id requires valid project context`",
      ),
      401: unauthorized,
      403: badRequest("Sender not verified"),
      404: notFound("Template not found for the key's project"),
      500: internalError,
    },
  },
  {
    service: "public-api",
    method: "post",
    path: "/v1/send-batch",
    tag: "Sending",
    summary: "Send to up to 12,500 recipients (spec 4.3)",
    headers: idempotencyKey,
    body: sendBatchBody,
    responses: {
      200: {
        description: "Batch accepted; suppressed recipients have `activity_id: null`",
        schema: batchAccepted,
      },
      400: badRequest("One of the messages of spec 4.3"),
      401: unauthorized,
      403: badRequest("Sender not verified"),
      500: badRequest("`Failed to process batch`"),
    },
  },
  {
    service: "public-api",
    method: "get",
    path: "/v1/scheduled-sends/{id}",
    tag: "Sending",
    summary: "State of a scheduled send",
    pathParams: id,
    responses: {
      200: { description: "The scheduled send", schema: scheduledSend.passthrough() },
      401: unauthorized,
      404: notFound(),
    },
  },
  {
    service: "public-api",
    method: "delete",
    path: "/v1/scheduled-sends/{id}",
    tag: "Sending",
    summary: "Cancel a scheduled send before it goes out",
    pathParams: id,
    responses: {
      200: {
        description: "Cancelled; live emails are given back to the quota",
        schema: z.object({
          success: z.literal(true),
          scheduled_send_id: z.uuid(),
          status: z.literal("cancelled"),
          cancelled_emails: z.number().int(),
        }),
      },
      401: unauthorized,
      404: notFound(),
      409: badRequest("Already handed to the send-worker, or already cancelled"),
    },
  },
  {
    service: "public-api",
    method: "get",
    path: "/v1/openapi.json",
    tag: "Reference",
    auth: "none",
    summary: "This document (OpenAPI 3.1)",
    responses: { 200: { description: "The public API reference", contentType: "application/json" } },
  },
  {
    service: "public-api",
    method: "get",
    path: "/docs",
    tag: "Reference",
    auth: "none",
    summary: "The API reference as a page (served offline, no CDN)",
    responses: { 200: { description: "HTML page rendering this document", contentType: "text/html" } },
  },
];
