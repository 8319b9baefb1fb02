import { z } from "zod";
import { isoInstant, paginationQuery } from "./events";

// The conversation API (inbound replies, spec 4.9 / 6.2): threads of a project and their messages.

/** GET /v1/threads: filters, newest activity first. */
export const listThreadsQuery = z.strictObject({
  /** the original send's activity */
  activity_id: z.uuid({ error: "must be an activity UUID" }).optional(),
  campaign_id: z.uuid({ error: "must be a campaign UUID" }).optional(),
  /** threads with a message at or after this instant */
  since: isoInstant().optional(),
  ...paginationQuery,
});
export type ListThreadsQuery = z.output<typeof listThreadsQuery>;

const address = z.object({ email: z.string(), name: z.string().nullable() });

export const threadSchema = z.object({
  id: z.uuid(),
  /** the original send: activity, message, campaign, its Message-ID as delivered */
  activity_id: z.uuid().nullable(),
  email_id: z.uuid().nullable(),
  campaign_id: z.uuid().nullable(),
  outbound_message_id: z.string().nullable(),
  email_type: z.string().nullable(),
  is_test: z.boolean(),
  subject: z.string(),
  participants: z.array(z.string()),
  message_count: z.number().int(),
  last_message_at: z.string(),
  created_at: z.string(),
});

export const threadAttachmentSchema = z.object({
  id: z.uuid(),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  storage_key: z.string(),
});

/** One message of a thread, the original send or a reply, in time order. */
export const threadMessageSchema = z.union([
  z.object({
    direction: z.literal("outbound"),
    activity_id: z.uuid(),
    message_id: z.string().nullable(),
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    status: z.string(),
    sent_at: z.string().nullable(),
  }),
  z.object({
    direction: z.literal("inbound"),
    id: z.uuid(),
    message_id: z.string().nullable(),
    in_reply_to: z.string().nullable(),
    from: address,
    to: z.array(address),
    cc: z.array(address),
    subject: z.string(),
    text_body: z.string(),
    html_body: z.string().describe("As received: sanitise before showing it"),
    reply_text: z.string(),
    kind: z.enum(["reply", "auto_reply", "bounce_report", "forward"]),
    matched_by: z.string().nullable(),
    suspicious: z.boolean(),
    verdicts: z.record(z.string(), z.string().nullable()),
    attachments: z.array(threadAttachmentSchema),
    date: z.string().nullable(),
    received_at: z.string(),
  }),
]);
