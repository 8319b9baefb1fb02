import { randomUUID } from "node:crypto";
import { asciiDomainAddress } from "@emailsvc/contracts";
import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import { encodeWord } from "nodemailer/lib/mime-funcs";

export interface MimeInput {
  from: { name: string | null; address: string };
  to: string;
  cc: string[];
  replyTo: { name: string; address: string } | null;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  attachments: { filename: string; contentType: string; content: Buffer }[];
}

/**
 * RFC 5322 message with text and HTML alternatives and attachments (Bcc never appears in the headers).
 * The Message-ID and the multipart boundary come from one `randomUUID` (served from a buffered entropy pool):
 * nodemailer's own draw six separate `randomBytes` calls per message, about a fifth of its cost here.
 * (MailComposer reads `baseBoundary` from the mail options; nodemailer's typings do not list it.)
 */
export async function buildMime(input: MimeInput): Promise<Buffer> {
  const uuid = randomUUID();
  const options: Mail.Options & { baseBoundary: string } = {
    // an msg-id is ASCII (RFC 5322 3.6.4): an internationalised domain in its punycode form
    messageId: `<${uuid}@${asciiDomainAddress(input.from.address).split("@").pop()}>`,
    baseBoundary: uuid.replace(/-/g, ""),
    from: input.from.name ? { name: input.from.name, address: input.from.address } : input.from.address,
    to: input.to,
    ...(input.cc.length ? { cc: input.cc } : {}),
    ...(input.replyTo ? { replyTo: input.replyTo } : {}),
    subject: foldableSubject(input.subject),
    // CR and LF only as CRLF (RFC 5322 2.3): a text part generated from HTML is LF-separated, and a bare LF
    // before a lone "." is the SMTP smuggling pattern many MTAs refuse.
    text: crlf(input.text),
    html: crlf(input.html),
    headers: input.headers,
    attachments: input.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
  };
  const built = await new MailComposer(options).compile().build();
  return input.replyTo ? quoteReplyTo(built, input.replyTo) : built;
}

/**
 * nodemailer folds a header only at whitespace, so a subject with a run of 900+ characters without any (the
 * subject may be 998 long) made a line past RFC 5322's 998. As RFC 2047 encoded words it folds anywhere and
 * decodes to the same text (the whitespace between adjacent encoded words is dropped).
 */
const foldableSubject = (s: string): string => (/\S{900}/.test(s) ? encodeWord(s, "B", 52) : s);

const crlf = (s: string): string => s.replace(/\r\n|\r|\n/g, "\r\n");

/** RFC 5322 2.1.1: no header line longer than this. */
const MAX_LINE = 998;

/**
 * Spec 4.11's exact form `"<sender_name>" <r-<token>@{inbound_domain}>`. nodemailer writes `Name <addr>` (the
 * quotes are optional in RFC 5322), so for a plain ASCII name the header line is rewritten with them; a
 * non-ASCII name keeps nodemailer's RFC 2047 encoding, which cannot sit inside quotes, and so does a name too
 * long for one header line (nodemailer's form is folded).
 */
function quoteReplyTo(mime: Buffer, replyTo: { name: string; address: string }): Buffer {
  if (!/^[\x20-\x7e]*$/.test(replyTo.name)) return mime;
  const line = `Reply-To: "${replyTo.name.replace(/(["\\])/g, "\\$1")}" <${replyTo.address}>`;
  if (line.length > MAX_LINE) return mime;
  const text = mime.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  // A function, not a replacement string: `$'`, `` $` `` or `$&` in a sender's name are text, not patterns.
  const head = text.slice(0, end).replace(/^Reply-To:.*(?:\r\n[ \t].*)*$/m, () => line);
  return Buffer.from(head + text.slice(end), "latin1");
}
