import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";

export interface MimeInput {
  from: string;
  to: string[];
  cc?: string[];
  replyTo?: string[];
  subject: string;
  text?: string;
  html?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string | string[];
  headers?: Record<string, string>;
  attachments?: { filename: string; content: string; encoding?: "base64" | "utf8"; contentType?: string }[];
}

/** Builds an RFC 5322 message (what SES itself would assemble for a Simple send). Bcc never appears in it. */
export async function buildMime(input: MimeInput): Promise<string> {
  const mail: Mail.Options = {
    from: input.from,
    to: input.to,
    ...(input.cc?.length ? { cc: input.cc } : {}),
    ...(input.replyTo?.length ? { replyTo: input.replyTo } : {}),
    subject: input.subject,
    ...(input.text !== undefined ? { text: input.text } : {}),
    ...(input.html !== undefined ? { html: input.html } : {}),
    ...(input.messageId ? { messageId: input.messageId } : {}),
    ...(input.inReplyTo ? { inReplyTo: input.inReplyTo } : {}),
    ...(input.references ? { references: input.references } : {}),
    ...(input.headers ? { headers: input.headers } : {}),
    ...(input.attachments?.length
      ? {
          attachments: input.attachments.map((a) => ({
            filename: a.filename,
            content: Buffer.from(a.content, a.encoding ?? "base64"),
            ...(a.contentType ? { contentType: a.contentType } : {}),
          })),
        }
      : {}),
  };
  const buf = await new MailComposer(mail).compile().build();
  return buf.toString("utf8");
}
