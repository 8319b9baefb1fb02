import { z } from "zod";
import type { SimContext } from "../context";
import { bareAddress } from "../context";
import { buildMime } from "../mime/build-mime";
import { parseMessage } from "../mime/parse-message";
import { inboundMessageId } from "../ses/ids";
import type { NotificationRecord } from "../state/types";
import { storeInboundMime } from "./inbound-store";

const addressList = z.union([z.string().min(3), z.array(z.string().min(3)).min(1)]);

const status = z.enum(["PASS", "FAIL", "GRAY", "PROCESSING_FAILED"]);
/** SES's receipt verdicts; each defaults to PASS. */
const verdicts = z
  .object({
    spam: status,
    virus: status,
    spf: status,
    dkim: status,
    dmarc: status,
    dmarcPolicy: z.enum(["none", "quarantine", "reject"]),
  })
  .partial()
  .optional();

export const injectInboundBody = z.union([
  z.object({
    raw: z.string().min(1),
    /** Envelope overrides; default from the MIME headers. */
    from: z.string().optional(),
    to: addressList.optional(),
    verdicts,
  }),
  z.object({
    from: z.string().min(3),
    to: addressList,
    cc: addressList.optional(),
    subject: z.string().default(""),
    text: z.string().optional(),
    html: z.string().optional(),
    messageId: z.string().optional(),
    inReplyTo: z.string().optional(),
    references: z.union([z.string(), z.array(z.string())]).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    attachments: z
      .array(
        z.object({
          filename: z.string(),
          content: z.string(),
          encoding: z.enum(["base64", "utf8"]).optional(),
          contentType: z.string().optional(),
        }),
      )
      .optional(),
    verdicts,
  }),
]);

export type InjectInboundBody = z.infer<typeof injectInboundBody>;

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export interface InjectInboundResult {
  messageId: string;
  bucketName?: string;
  objectKey?: string;
  notification: Promise<NotificationRecord>;
}

/**
 * What SES receiving does for one incoming mail: store the MIME with the S3 action, then publish a "Received"
 * notification. Without S3 configured it falls back to SES's SNS action, which carries the MIME in `content`.
 */
export async function injectInbound(ctx: SimContext, body: InjectInboundBody): Promise<InjectInboundResult> {
  const raw =
    "raw" in body
      ? body.raw
      : await buildMime({
          from: body.from,
          to: list(body.to),
          cc: list(body.cc),
          subject: body.subject,
          ...(body.text !== undefined ? { text: body.text } : {}),
          ...(body.html !== undefined ? { html: body.html } : {}),
          ...(body.messageId ? { messageId: body.messageId } : {}),
          ...(body.inReplyTo ? { inReplyTo: body.inReplyTo } : {}),
          ...(body.references ? { references: body.references } : {}),
          ...(body.headers ? { headers: body.headers } : {}),
          ...(body.attachments ? { attachments: body.attachments } : {}),
        });
  const headers = await parseMessage(raw);
  const source = bareAddress(body.from ?? headers.from ?? "");
  const destination = body.to ? list(body.to).map(bareAddress) : [...headers.to, ...headers.cc];
  const messageId = inboundMessageId();
  const now = new Date();

  const stored = ctx.s3 ? await storeInboundMime(ctx.s3, messageId, raw) : null;
  const inboundTopicArn = ctx.inboundTopicArn;
  const header = (n: string) => headers.headers.find((h) => h.name.toLowerCase() === n)?.value;
  const message: Record<string, unknown> = {
    notificationType: "Received",
    mail: {
      timestamp: now.toISOString(),
      source,
      messageId,
      destination,
      headersTruncated: false,
      headers: headers.headers,
      commonHeaders: {
        returnPath: source,
        from: [header("from") ?? source],
        to: headers.to,
        ...(header("date") ? { date: header("date") } : {}),
        ...(headers.messageId ? { messageId: headers.messageId } : {}),
        subject: headers.subject,
      },
    },
    receipt: {
      timestamp: now.toISOString(),
      processingTimeMillis: 50,
      recipients: destination,
      spamVerdict: { status: body.verdicts?.spam ?? "PASS" },
      virusVerdict: { status: body.verdicts?.virus ?? "PASS" },
      spfVerdict: { status: body.verdicts?.spf ?? "PASS" },
      dkimVerdict: { status: body.verdicts?.dkim ?? "PASS" },
      dmarcVerdict: { status: body.verdicts?.dmarc ?? "PASS" },
      ...(body.verdicts?.dmarcPolicy ? { dmarcPolicy: body.verdicts.dmarcPolicy } : {}),
      action: stored
        ? {
            type: "S3",
            topicArn: inboundTopicArn,
            bucketName: stored.bucketName,
            objectKeyPrefix: ctx.s3?.prefix ?? "",
            objectKey: stored.objectKey,
          }
        : { type: "SNS", topicArn: inboundTopicArn, encoding: "UTF8" },
    },
    ...(stored ? {} : { content: raw }),
  };

  ctx.state.inbound.push({
    messageId,
    timestamp: now.toISOString(),
    source,
    destination,
    ...(stored ?? {}),
    raw,
  });
  return { messageId, ...(stored ?? {}), notification: ctx.notifier.publishInbound(messageId, message) };
}
