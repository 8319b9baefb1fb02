import type { ProjectId } from "@emailsvc/contracts";
import type { Verdicts } from "./ses-received";
import type { InboundKind } from "./classify";
import type { Address } from "./parse-mime";

export interface WebhookAttachment {
  filename: string;
  content_type: string;
  size: number;
  storage_key: string;
  download_url: string;
}

export interface InboundWebhookInput {
  inboundId: string;
  projectId: ProjectId;
  isTest: boolean;
  threadId: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  from: Address;
  to: Address[];
  cc: Address[];
  subject: string;
  text: string;
  html: string;
  date: Date | null;
  attachments: WebhookAttachment[];
  returnPathParsed: { project_id: ProjectId; activity_id: string } | null;
  original: {
    messageId: string | null;
    activityId: string | null;
    campaignId: string | null;
    emailType: string | null;
  };
  replyText: string;
  kind: InboundKind;
  verdicts: Verdicts;
  suspicious: boolean;
  matchedBy: string;
  receivedAt: Date;
}

/**
 * The inbound reply webhook body, exactly as spec 6.2 lists it, plus fields the spec leaves room for (extra `data`
 * fields are allowed): `reply_text`, `kind`, `verdicts`, `suspicious`, `matched_by`, `inbound_id`. Built once
 * when the reply is stored; every attempt and a redelivery send these bytes.
 */
export function buildInboundWebhookBody(i: InboundWebhookInput): string {
  return JSON.stringify({
    event: "email.inbound",
    timestamp: i.receivedAt.toISOString(),
    project_id: i.projectId,
    is_test: i.isTest,
    data: {
      message_id: i.messageId ?? "",
      thread_id: i.threadId,
      in_reply_to: i.inReplyTo ?? "",
      references: i.references,
      from: { email: i.from.email, name: i.from.name },
      to: i.to.map((a) => ({ email: a.email, name: a.name })),
      cc: i.cc.map((a) => ({ email: a.email, name: a.name })),
      subject: i.subject,
      text_body: i.text,
      // as received, scripts included: receivers must sanitise HTML before showing it
      html_body: i.html,
      date: (i.date ?? i.receivedAt).toISOString(),
      attachments: i.attachments,
      return_path_parsed: i.returnPathParsed,
      original_outbound: {
        message_id: i.original.messageId ?? "",
        activity_id: i.original.activityId,
        campaign_id: i.original.campaignId,
        email_type: i.original.emailType,
        thread_id: i.threadId,
      },
      reply_text: i.replyText,
      kind: i.kind,
      verdicts: i.verdicts,
      suspicious: i.suspicious,
      matched_by: i.matchedBy,
      inbound_id: i.inboundId,
    },
  });
}
