import path from "node:path";

/** Longest stored attachment name (characters). */
const MAX_NAME = 200;

/**
 * An attachment's file name as stored and shown: the last path segment only (`../../etc/passwd` → `passwd`,
 * `C:\\x\\a.pdf` → `a.pdf`), no control characters, no leading dots (no hidden or `..` names), no characters
 * that are special in S3 keys or shells, at most 200 characters with the extension kept. Never empty.
 */
export function sanitizeFilename(name: string | undefined | null, fallback = "attachment"): string {
  let s = (name ?? "").normalize("NFC");
  s = s.split(/[\\/]/).pop() ?? "";
  s = s
    // control characters (C0, DEL, C1): matched by code point, which no-control-regex cannot object to
    .replace(/\p{Cc}/gu, "")
    .replace(/[<>:"|?*#%{}^~`[\]]/g, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "")
    .trim();
  if (!s) return fallback;
  if (s.length > MAX_NAME) {
    const ext = path.extname(s).slice(0, 16);
    s = s.slice(0, MAX_NAME - ext.length) + ext;
  }
  return s;
}
