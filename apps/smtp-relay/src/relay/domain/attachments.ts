import { extname } from "node:path";
import { ALLOWED_ATTACHMENT_TYPES, AppError, ErrorCode, SEND_LIMITS } from "@emailsvc/contracts";
import { contentTypeFromFilename } from "@emailsvc/content";

/** An attachment as mailparser found it in the MIME message. */
export interface ParsedAttachment {
  filename?: string | undefined;
  contentType: string;
  content: Buffer;
}

export interface CheckedAttachment {
  index: number;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

const ALLOWED = new Set<string>(ALLOWED_ATTACHMENT_TYPES);
const EXTENSION: Record<string, string> = { "application/pdf": ".pdf", "text/calendar": ".ics" };
const MB10 = "10 MB";

/** Path separators, control and bidirectional characters: the name goes into a MIME header and an S3 key. */
const unsafeName = (name: string): boolean =>
  /^\.*$/.test(name) ||
  [...name].some((c) => {
    const code = c.charCodeAt(0);
    return c === "/" || c === "\\" || code < 0x20 || (code >= 0x7f && code <= 0x9f);
  }) ||
  /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(name);

/**
 * The rules of /v1/send-email's attachments (spec 8) applied to a MIME message's parts: at most 10, only the
 * allowed types (the part's type, and the filename's extension must not claim another one), 10 MB each and in
 * all. A part without a filename gets `attachment-<n>` with its type's extension. Throws the AppError the relay
 * answers with (VALIDATION: 554 5.6.0, PAYLOAD_TOO_LARGE: 552 5.3.4).
 */
export function checkAttachments(parts: readonly ParsedAttachment[]): CheckedAttachment[] {
  if (parts.length > SEND_LIMITS.attachments)
    throw new AppError(
      ErrorCode.VALIDATION,
      `Too many attachments: ${parts.length}. Maximum is ${SEND_LIMITS.attachments}`,
    );
  let total = 0;
  return parts.map((part, index) => {
    const type = part.contentType.split(";")[0]!.trim().toLowerCase();
    const filename = part.filename?.trim() || `attachment-${index + 1}${EXTENSION[type] ?? ""}`;
    if (unsafeName(filename))
      throw new AppError(
        ErrorCode.VALIDATION,
        `attachment ${index + 1}: filename must not contain path separators or control characters`,
      );
    if (!ALLOWED.has(type))
      throw new AppError(
        ErrorCode.VALIDATION,
        `attachment ${JSON.stringify(filename)}: type ${type} is not allowed; allowed types are ${ALLOWED_ATTACHMENT_TYPES.join(" and ")}`,
      );
    const byName = contentTypeFromFilename(filename);
    if (byName && byName !== type)
      throw new AppError(
        ErrorCode.VALIDATION,
        `attachment ${JSON.stringify(filename)}: the extension ${extname(filename)} does not match its type ${type}`,
      );
    if (part.content.length > SEND_LIMITS.attachmentBytes)
      throw new AppError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `attachment ${JSON.stringify(filename)} exceeds the ${MB10} limit`,
      );
    total += part.content.length;
    if (total > SEND_LIMITS.totalAttachmentBytes)
      throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `Attachments exceed the ${MB10} total limit`);
    return { index, filename, contentType: type, bytes: part.content };
  });
}
