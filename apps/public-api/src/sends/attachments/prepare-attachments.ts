import { extname } from "node:path";
import { format as formatContentType, parse as parseContentType } from "content-type";
import {
  ALLOWED_ATTACHMENT_TYPES,
  AppError,
  type AttachmentInput,
  ErrorCode,
  SEND_LIMITS,
} from "@emailsvc/contracts";
import { contentTypeFromFilename } from "@emailsvc/content";
import type { StoredAttachment } from "@emailsvc/sending";
import type { AttachmentStore } from "./attachment-store";
import { DownloadError, type SafeDownloader } from "./safe-download";

/** What `email_messages.attachments` holds (docs/send-pipeline.md); the send-worker reads the bytes from S3. */
export type { StoredAttachment };

/** An attachment whose request fields passed every check that needs no network. */
export interface CheckedAttachment {
  index: number;
  filename: string;
  /** null only for a `url` attachment whose type must come from the download's Content-Type. */
  contentType: string | null;
  source: { kind: "content"; bytes: Buffer } | { kind: "url"; url: string };
}

const ALLOWED = new Set<string>(ALLOWED_ATTACHMENT_TYPES);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MB10 = "10 MB";

/**
 * Path separators, control characters (a filename ends up in a MIME header and an S3 key), bidirectional
 * controls (U+202E makes "invoice\u202Efdp.exe" display as "invoiceexe.pdf") and names of only dots.
 */
const hasUnsafeFilenameChars = (name: string): boolean =>
  /^\.*$/.test(name) ||
  [...name].some(
    (c) =>
      c === "/" ||
      c === "\\" ||
      c.charCodeAt(0) < 0x20 ||
      (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f) ||
      /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(c),
  );

/**
 * The attachment's Content-Type as it will be stored and sent: a valid media type (RFC 9110 syntax, so no
 * control or non-Latin-1 characters reach the S3 request or the MIME headers) of an allowed type, lower-cased,
 * its parameters kept (`text/calendar; method=REQUEST` matters to mail clients) except `name` (and its RFC 2231
 * forms `name*`, `name*0`…), which the MIME part takes from the filename. A filename whose extension belongs to
 * another type ("invoice.exe" sent as application/pdf) is refused: mail clients open by the name.
 */
function checkedType(index: number, contentType: string, filename: string): string {
  let type: string;
  let formatted: string;
  try {
    const parsed = parseContentType(contentType.trim());
    const parameters = Object.fromEntries(
      Object.entries(parsed.parameters).filter(([k]) => !/^name(\*|$)/.test(k)),
    );
    type = parsed.type;
    // format() is the strict half: it refuses parameter names and values that are not valid header text.
    formatted = formatContentType({ type, parameters });
    // format() lets Latin-1 through in quoted values; S3 signs header values as UTF-8 and Node sends them as
    // Latin-1, so only printable ASCII goes on.
    if (!/^[\x20-\x7e]*$/.test(formatted)) throw new Error("not ASCII");
  } catch {
    throw new AppError(
      ErrorCode.VALIDATION,
      `attachments[${index}]: contentType ${JSON.stringify(contentType)} is not a valid media type`,
    );
  }
  if (!ALLOWED.has(type)) {
    throw new AppError(
      ErrorCode.VALIDATION,
      `attachments[${index}]: type ${type} is not allowed; allowed types are ${ALLOWED_ATTACHMENT_TYPES.join(" and ")}`,
    );
  }
  const byName = contentTypeFromFilename(filename);
  if (byName && byName !== type)
    throw new AppError(
      ErrorCode.VALIDATION,
      `attachments[${index}]: the filename's extension (${extname(filename)}) does not match its type ${type}`,
    );
  return formatted;
}

function tooLarge(index: number): AppError {
  return new AppError(
    ErrorCode.PAYLOAD_TOO_LARGE,
    `attachments[${index}]: attachment exceeds the ${MB10} limit`,
  );
}
const totalTooLarge = (): AppError =>
  new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `Attachments exceed the ${MB10} total limit`);

/**
 * Everything that can be checked without the network, in request order: filename, type (given, else from the
 * filename's extension), base64 form and decoded size of inline content, the total so far. Runs before sender
 * verification and before any download, so a bad request never costs a fetch.
 */
export function checkAttachments(inputs: readonly AttachmentInput[]): CheckedAttachment[] {
  let total = 0;
  return inputs.map((a, index) => {
    if (hasUnsafeFilenameChars(a.filename)) {
      throw new AppError(
        ErrorCode.VALIDATION,
        `attachments[${index}]: filename must not contain path separators or control characters`,
      );
    }
    const given = a.contentType || contentTypeFromFilename(a.filename);
    const contentType = given ? checkedType(index, given, a.filename) : null;
    if (!contentType && !a.url)
      throw new AppError(
        ErrorCode.VALIDATION,
        `attachments[${index}]: contentType is required when the filename has no known extension`,
      );

    if (a.content) {
      if (/^data:/i.test(a.content))
        throw new AppError(
          ErrorCode.VALIDATION,
          `attachments[${index}]: content must be raw base64 without a data: prefix`,
        );
      const b64 = a.content.replace(/\s+/g, "");
      if (b64.length % 4 === 1 || !BASE64.test(b64))
        throw new AppError(ErrorCode.VALIDATION, `attachments[${index}]: content is not valid base64`);
      // Checked on the encoded length first so a huge string is refused before it is decoded.
      const approx = Math.floor((b64.length * 3) / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0);
      if (approx > SEND_LIMITS.attachmentBytes) throw tooLarge(index);
      const bytes = Buffer.from(b64, "base64");
      total += bytes.length;
      if (total > SEND_LIMITS.totalAttachmentBytes) throw totalTooLarge();
      return { index, filename: a.filename, contentType, source: { kind: "content", bytes } };
    }
    return { index, filename: a.filename, contentType, source: { kind: "url", url: a.url! } };
  });
}

/**
 * The `url` attachments' checks that need no network (form, scheme, credentials, a literal private address), so
 * that a dry run refuses what the real send would, and a bad URL is refused before anything else is done.
 */
export function checkAttachmentUrls(
  downloader: Pick<SafeDownloader, "check">,
  checked: readonly CheckedAttachment[],
): void {
  for (const a of checked) {
    if (a.source.kind !== "url") continue;
    try {
      downloader.check(a.source.url);
    } catch (err) {
      throw err instanceof DownloadError ? downloadError(a.index, err) : err;
    }
  }
}

function downloadError(index: number, err: DownloadError): AppError {
  if (err.failure === "too_large") return tooLarge(index);
  return new AppError(ErrorCode.VALIDATION, `attachments[${index}]: ${err.message}`, { cause: err });
}

const safeName = (filename: string): string => filename.replace(/[^A-Za-z0-9._-]/g, "_").slice(-100);

export interface StoreAttachmentsDeps {
  downloader: SafeDownloader;
  store: AttachmentStore;
}

/**
 * Downloads the `url` attachments (SSRF-guarded, in parallel), applies the size and type rules to what came
 * back, then stores every attachment in S3 under `<prefix>/<index>-<filename>`. Runs before the accept
 * transaction: a failed request can leave objects behind (the bucket's lifecycle rule expires them), but an
 * accepted email never points at a missing object.
 */
export async function storeAttachments(
  deps: StoreAttachmentsDeps,
  checked: readonly CheckedAttachment[],
  keyPrefix: string,
): Promise<StoredAttachment[]> {
  if (checked.length === 0) return [];
  const resolved = await Promise.all(
    checked.map(async (a) => {
      if (a.source.kind === "content") return { ...a, contentType: a.contentType!, bytes: a.source.bytes };
      try {
        const got = await deps.downloader.download(a.source.url);
        const type = a.contentType ?? got.contentType;
        if (!type)
          throw new AppError(
            ErrorCode.VALIDATION,
            `attachments[${a.index}]: the content type could not be determined`,
          );
        const contentType = a.contentType ?? checkedType(a.index, type, a.filename);
        return { ...a, contentType, bytes: got.body };
      } catch (err) {
        if (err instanceof DownloadError) throw downloadError(a.index, err);
        throw err;
      }
    }),
  );
  const total = resolved.reduce((n, a) => n + a.bytes.length, 0);
  if (total > SEND_LIMITS.totalAttachmentBytes) throw totalTooLarge();
  return Promise.all(
    resolved.map(async (a) => {
      const storageKey = `${keyPrefix}/${a.index}-${safeName(a.filename)}`;
      await deps.store.put(storageKey, a.bytes, a.contentType);
      return { filename: a.filename, contentType: a.contentType, size: a.bytes.length, storageKey };
    }),
  );
}
