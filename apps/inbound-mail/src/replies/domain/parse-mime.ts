import { type AddressObject, type ParsedMail, simpleParser } from "mailparser";
import { normalizeMessageId, normalizeMessageIds } from "./message-ids";

export interface Address {
  email: string;
  name: string | null;
}

export interface ParsedAttachment {
  /** As the message names it (unsanitised: see sanitizeFilename). */
  filename: string | null;
  contentType: string;
  content: Buffer;
}

/** A received message as inbound-mail uses it. */
export interface ParsedReply {
  /** Header values as received (trimmed), for the webhook body. */
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  /** Bare lower-case ids, for matching. */
  inReplyToIds: string[];
  referenceIds: string[];
  /** From the `From:` header (`mail.source` is the envelope sender, often a bounce address). */
  from: Address | null;
  to: Address[];
  cc: Address[];
  subject: string;
  text: string;
  html: string;
  date: Date | null;
  attachments: ParsedAttachment[];
  /** Lower-cased header name → its values as text (what classification reads). */
  headers: Map<string, string[]>;
  /** The top-level content type, e.g. `multipart/report`. */
  contentType: string;
  /** `report-type` of a multipart/report. */
  reportType: string | null;
}

/** The message could not be parsed; `message` says why (recorded on the notification). */
export class UnparseableMessageError extends Error {
  override name = "UnparseableMessageError";
}

function addresses(field: AddressObject | AddressObject[] | undefined): Address[] {
  if (!field) return [];
  const out: Address[] = [];
  const walk = (items: AddressObject["value"]) => {
    for (const a of items) {
      if (a.address) out.push({ email: a.address.trim(), name: a.name?.trim() || null });
      if (a.group) walk(a.group);
    }
  };
  for (const obj of Array.isArray(field) ? field : [field]) walk(obj.value);
  return out;
}

function headerText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(headerText).join(", ");
  if (value && typeof value === "object") {
    const v = value as { value?: unknown; text?: unknown; params?: Record<string, string> };
    if (typeof v.text === "string") return v.text;
    if (typeof v.value === "string") {
      const params = v.params ? Object.entries(v.params).map(([k, p]) => `; ${k}=${p}`) : [];
      return v.value + params.join("");
    }
  }
  return String(value ?? "");
}

const rawIds = (value: string | string[] | undefined): string[] =>
  value === undefined
    ? []
    : (Array.isArray(value) ? value : value.split(/\s+/)).map((s) => s.trim()).filter(Boolean);

/**
 * Parses the MIME with mailparser. A message mailparser refuses (nesting past its limit, a header block past its
 * size limit, …) is an UnparseableMessageError with mailparser's reason.
 */
export async function parseMime(raw: Buffer): Promise<ParsedReply> {
  let mail: ParsedMail;
  try {
    mail = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true });
  } catch (err) {
    throw new UnparseableMessageError(err instanceof Error ? err.message : String(err));
  }
  const headers = new Map<string, string[]>();
  for (const [name, value] of mail.headers) {
    const list = headers.get(name) ?? [];
    list.push(headerText(value));
    headers.set(name, list);
  }
  const contentType = mail.headers.get("content-type") as
    { value?: string; params?: Record<string, string> } | undefined;
  const from = addresses(mail.from)[0] ?? null;
  const messageId = mail.messageId?.trim() || null;
  return {
    messageId,
    inReplyTo: mail.inReplyTo?.trim() || null,
    references: rawIds(mail.references),
    inReplyToIds: normalizeMessageId(mail.inReplyTo) ? [normalizeMessageId(mail.inReplyTo)!] : [],
    referenceIds: normalizeMessageIds(mail.references),
    from,
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    subject: mail.subject ?? "",
    text: mail.text ?? "",
    html: typeof mail.html === "string" ? mail.html : "",
    date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : null,
    attachments: mail.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.contentType || "application/octet-stream",
      content: a.content,
    })),
    headers,
    contentType: (contentType?.value ?? "text/plain").toLowerCase(),
    reportType: contentType?.params?.["report-type"]?.toLowerCase() ?? null,
  };
}
