import { domainToASCII } from "node:url";
import { z } from "zod";

// Request bodies of the send endpoints (spec 4.1, 4.2, 4.4) and the limits of spec 8 they enforce. The exact
// client-visible messages live here too, so every service (and test) uses the same words.

/** Spec 4.1 / 7: the one message for any missing required field of POST /v1/send-email. */
export const MSG_SEND_EMAIL_MISSING = "Missing required fields: recipient_email, sender_email, html_body";
/** Spec 4.2 / 7. */
export const MSG_SEND_TEMPLATE_MISSING =
  "Missing required fields: recipient_email, sender_email, html_body (or template_id)";
/** Spec 4.2: `template_internal_id` that is not a positive integer. */
export const MSG_TEMPLATE_INTERNAL_ID_CONTEXT = "template_internal_id requires valid project context";
/** Spec 4.4 / 7 (`Missing required field: subject`). */
export const missingFieldMessage = (field: string): string => `Missing required field: ${field}`;

export const SEND_LIMITS = {
  /** Spec 8: recipients in a `recipient_email` array. */
  recipients: 50,
  cc: 10,
  bcc: 10,
  attachments: 10,
  /** Per attachment and for all attachments of one email together (decoded bytes). */
  attachmentBytes: 10 * 1024 * 1024,
  totalAttachmentBytes: 10 * 1024 * 1024,
  /** RFC 5321 path limit. */
  addressLength: 254,
} as const;

/** Spec 8: the only attachment types accepted. */
export const ALLOWED_ATTACHMENT_TYPES = ["application/pdf", "text/calendar"] as const;

/**
 * RFC 5322 dot-atom text: ASCII letters, digits and `!#$%&'*+/=?^_\`{|}~.-`, dots only between them (not
 * first, last or two in a row). No control characters, no
 * non-ASCII (SES has no SMTPUTF8: such a local part cannot be delivered, and C1 controls such as NEL are line
 * breaks to some readers), no quoted forms.
 */
const LOCAL_PART = /^(?!\.)[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}(?<!\.)$/;
const ASCII_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A plain mailbox address (`local@domain`). Internationalised domains are accepted and checked in their ASCII
 * (punycode) form; display names and comments are not (names travel in `sender_name` / `senderName`).
 */
export function isEmailAddress(value: string): boolean {
  if (value.length > SEND_LIMITS.addressLength) return false;
  const at = value.lastIndexOf("@");
  if (at <= 0 || at === value.length - 1) return false;
  const local = value.slice(0, at);
  if (!LOCAL_PART.test(local) || local.includes("..")) return false;
  return isMailDomain(value.slice(at + 1));
}

/**
 * The domain half of isEmailAddress, remembered per domain as written: a batch's 12,500 recipients share a few
 * domains, and domainToASCII was half the cost of checking an address. Cleared when full, so it stays small.
 */
const domainChecks = new Map<string, boolean>();
const DOMAIN_CHECKS_MAX = 1_000;

function isMailDomain(domain: string): boolean {
  let ok = domainChecks.get(domain);
  if (ok !== undefined) return ok;
  const ascii = domainToASCII(domain);
  const labels = ascii ? ascii.split(".") : [];
  ok =
    !!ascii &&
    ascii.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => ASCII_LABEL.test(l)) &&
    /[a-z]/.test(labels[labels.length - 1]!);
  if (domainChecks.size >= DOMAIN_CHECKS_MAX) domainChecks.clear();
  domainChecks.set(domain, ok);
  return ok;
}

/**
 * `local@domain` with the domain lower-cased in its ASCII (punycode) form, the form SES identities, domain
 * identities and sender profiles use; the local part as given. (An address without `@` comes back unchanged.)
 */
export function asciiDomainAddress(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 0) return email;
  const domain = email.slice(at + 1).toLowerCase();
  return `${email.slice(0, at)}@${domainToASCII(domain) || domain}`;
}

const emailAddress = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .refine(isEmailAddress, {
      error: (iss) => `${field} is not a valid email address: ${String(iss.input)}`,
    });

/** The message of a string field over its length cap (zod would otherwise report the field's type message). */
const atMost = (field: string, max: number) => ({ error: `${field} must be at most ${max} characters` });

/**
 * One address or an array of 1..max addresses (0..max for an optional list such as cc, where `[]` means none);
 * always an array after parsing.
 */
const oneOrMany = (field: string, max: number, opts: { optional?: boolean } = {}) =>
  z
    .union([z.string(), z.array(z.unknown())], {
      error: `${field} must be an email address or an array of email addresses`,
    })
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(
      z
        .array(emailAddress(field))
        .min(opts.optional ? 0 : 1, { error: `${field} must not be empty` })
        .max(max, {
          error: (iss) =>
            `Too many addresses in ${field}: ${(iss.input as unknown[]).length}. Maximum is ${max}.`,
        }),
    );

/** Spec 2 "Attachment (request object)". Type, size and download rules are applied by the service. */
export const attachmentInput = z
  .object({
    filename: z
      .string({ error: "is required" })
      .trim()
      .min(1, { error: "is required" })
      .max(255, { error: "is too long" }),
    url: z
      .string({ error: "must be a string" })
      .trim()
      .max(2048, { error: "must be at most 2048 characters" })
      .nullish(),
    content: z.string({ error: "must be a string" }).nullish(),
    contentType: z
      .string({ error: "must be a string" })
      .trim()
      .max(255, { error: "must be at most 255 characters" })
      .nullish(),
  })
  .refine((a) => (a.url ? 1 : 0) + (a.content ? 1 : 0) === 1, {
    error: "needs exactly one of url or content",
  });
export type AttachmentInput = z.output<typeof attachmentInput>;

const attachments = z
  .array(attachmentInput, { error: "attachments must be an array" })
  .max(SEND_LIMITS.attachments, {
    error: (iss) =>
      `Too many attachments: ${(iss.input as unknown[]).length}. Maximum is ${SEND_LIMITS.attachments}.`,
  });

const variables = (field: string) =>
  z.record(z.string(), z.unknown(), { error: `${field} must be an object` });
const optionalText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .max(max, atMost(field, max))
    .nullish();

/** Spec 4.1 body (after the missing-fields check, which has its own fixed message). */
export const sendEmailBody = z.object({
  recipient_email: oneOrMany("recipient_email", SEND_LIMITS.recipients),
  sender_email: emailAddress("sender_email"),
  sender_name: optionalText("sender_name", 200),
  html_body: z.string({ error: "html_body must be a string" }).max(5_000_000, atMost("html_body", 5_000_000)),
  text_body: optionalText("text_body", 5_000_000),
  subject: optionalText("subject", 998),
  cc: oneOrMany("cc", SEND_LIMITS.cc, { optional: true }).nullish(),
  bcc: oneOrMany("bcc", SEND_LIMITS.bcc, { optional: true }).nullish(),
  attachments: attachments.nullish(),
  data: variables("data").nullish(),
  dry_run: z.boolean({ error: "dry_run must be a boolean" }).nullish(),
});
export type SendEmailBody = z.output<typeof sendEmailBody>;

/** Spec 4.2 body. `template_internal_id` is checked by the service (its error has a fixed message). */
export const sendTemplateEmailBody = z.object({
  template_id: z.uuid({ error: "template_id must be a UUID" }).nullish(),
  template_internal_id: z.unknown().optional(),
  recipient_email: emailAddress("recipient_email"),
  sender_email: emailAddress("sender_email"),
  sender_name: optionalText("sender_name", 200),
  subject: optionalText("subject", 998),
  variables: variables("variables").nullish(),
  /** Not in spec 4.2's table: as 4.1's, validates and renders without sending (it used to be ignored). */
  dry_run: z.boolean({ error: "dry_run must be a boolean" }).nullish(),
});
export type SendTemplateEmailBody = z.output<typeof sendTemplateEmailBody>;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
/**
 * Headers the service builds itself or that only a mail server may write: a caller must not be able to change
 * who an email goes to or is from, its structure (a top-level Content-Disposition would turn it into an
 * attachment), its trace fields or the provider's own (X-SES-*).
 */
const RESERVED_HEADERS = new Set([
  "from",
  "to",
  "cc",
  "bcc",
  "subject",
  "date",
  "message-id",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
  "content-disposition",
  "content-id",
  "return-path",
  "sender",
  "received",
  "dkim-signature",
]);
const reservedHeader = (name: string): boolean => {
  const lower = name.toLowerCase();
  return RESERVED_HEADERS.has(lower) || lower.startsWith("resent-") || lower.startsWith("x-ses-");
};
/** Printable text and tabs only (RFC 5322 unstructured text): no CR/LF, other C0 or C1 controls, or DEL. */
const isHeaderText = (v: string): boolean => {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) return false;
  }
  return true;
};
/** RFC 5322 2.1.1: a header line holds at most 998 characters (name, ": " and value, unfolded). */
const MAX_HEADER_LINE = 998;

export const customHeaders = z
  .record(
    z.string(),
    z.string().refine(isHeaderText, {
      error: "custom_headers values must be single-line text without control characters",
    }),
    {
      error: "custom_headers must be an object of strings",
    },
  )
  .refine((h) => Object.keys(h).every((k) => HEADER_NAME.test(k) && !reservedHeader(k)), {
    error: "custom_headers contains an invalid or reserved header name",
  })
  .refine((h) => Object.entries(h).every(([k, v]) => k.length + 2 + v.length <= MAX_HEADER_LINE), {
    error: `custom_headers: each header must fit one ${MAX_HEADER_LINE}-character line (name, ": " and value)`,
  })
  .refine((h) => Object.keys(h).length <= 30, { error: "custom_headers: at most 30 headers" });

/** Spec 4.4 body of the internal POST /send-email (required fields are checked first, one message each). */
export const internalSendEmailBody = z.object({
  html: z.string({ error: "html must be a string" }).max(5_000_000, atMost("html", 5_000_000)).nullish(),
  text: optionalText("text", 5_000_000),
  subject: z.string({ error: "subject must be a string" }).max(998, atMost("subject", 998)),
  recipient: oneOrMany("recipient", SEND_LIMITS.recipients),
  sender: emailAddress("sender"),
  senderName: optionalText("senderName", 200),
  templateId: z
    .string({ error: "templateId must be a string" })
    .trim()
    .min(1, { error: "templateId must not be empty" })
    .nullish(),
  data: variables("data").nullish(),
  email_type: z
    .string({ error: "email_type must be a string" })
    .trim()
    .min(1, { error: "email_type must not be empty" })
    .max(50, atMost("email_type", 50))
    .nullish(),
  campaign_id: z.uuid({ error: "campaign_id must be a UUID" }).nullish(),
  automation_run_id: z.uuid({ error: "automation_run_id must be a UUID" }).nullish(),
  scheduled_at: z.string({ error: "scheduled_at must be a string" }).nullish(),
  timezone: z.union([z.string(), z.number()], { error: "timezone must be a string or a number" }).nullish(),
  cc: oneOrMany("cc", SEND_LIMITS.cc, { optional: true }).nullish(),
  bcc: oneOrMany("bcc", SEND_LIMITS.bcc, { optional: true }).nullish(),
  attachments: attachments.nullish(),
  custom_headers: customHeaders.nullish(),
});
export type InternalSendEmailBody = z.output<typeof internalSendEmailBody>;
