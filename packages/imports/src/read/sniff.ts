import iconv from "iconv-lite";
import { ImportFileError } from "../errors";

/** Text encodings a CSV is read in: what Excel, Google Sheets, Numbers and LibreOffice write. */
export const CSV_ENCODINGS = ["utf-8", "utf-16le", "utf-16be", "windows-1252"] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

export type Sniffed = { kind: "zip" } | { kind: "text"; encoding: CsvEncoding; text: string };

/** Bytes read from the start of a file to recognise it. */
export const HEAD_BYTES = 64 * 1024;

// Formats people upload by mistake, named so the failure says what the file is.
const SIGNATURES: [bytes: number[], what: string][] = [
  [[0x25, 0x50, 0x44, 0x46], "a PDF document"],
  [[0x89, 0x50, 0x4e, 0x47], "a PNG image"],
  [[0x47, 0x49, 0x46, 0x38], "a GIF image"],
  [[0xff, 0xd8, 0xff], "a JPEG image"],
  [[0x1f, 0x8b], "a gzip archive"],
  [[0x52, 0x61, 0x72, 0x21], "a RAR archive"],
  [[0x37, 0x7a, 0xbc, 0xaf], "a 7-Zip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "a program (ELF)"],
  [[0x4d, 0x5a], "a Windows program"],
  [
    [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    "a legacy Office file (Excel 97-2003 .xls?): save it as .xlsx or CSV",
  ],
];

const startsWith = (head: Buffer, bytes: number[]) => bytes.every((b, i) => head[i] === b);

/** The encoding of a text head: its byte-order mark, UTF-16's zero bytes, valid UTF-8, else Windows-1252. */
export function detectEncoding(head: Buffer, complete: boolean): CsvEncoding {
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return "utf-8";
  if (startsWith(head, [0xff, 0xfe])) return "utf-16le";
  if (startsWith(head, [0xfe, 0xff])) return "utf-16be";
  // UTF-16 without a mark: ASCII text has a zero in every other byte.
  const sample = head.subarray(0, 4096);
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i + 1 < sample.length; i += 2) {
    if (sample[i] === 0) evenZeros++;
    if (sample[i + 1] === 0) oddZeros++;
  }
  const pairs = Math.floor(sample.length / 2);
  if (pairs >= 2 && oddZeros > pairs * 0.4 && evenZeros < pairs * 0.05) return "utf-16le";
  if (pairs >= 2 && evenZeros > pairs * 0.4 && oddZeros < pairs * 0.05) return "utf-16be";
  return isUtf8(complete ? head : trimPartialUtf8(head)) ? "utf-8" : "windows-1252";
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The head without a multi-byte sequence cut by the end of the sample. */
function trimPartialUtf8(buf: Buffer): Buffer {
  for (let back = 1; back <= 3 && back <= buf.length; back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.subarray(0, buf.length - back) : buf;
  }
  return buf;
}

/**
 * What the file is, from its first bytes: a ZIP (an XLSX workbook, checked further by its directory) or text in
 * one of the CSV encodings. Anything else (a binary file named .csv, a PDF, an image, a legacy .xls) fails here
 * with what it looks like. `complete`: the head is the whole file.
 */
export function sniffFile(head: Buffer, complete: boolean): Sniffed {
  if (head.length === 0) throw new ImportFileError("the file is empty", "empty");
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]))
    return { kind: "zip" };
  for (const [bytes, what] of SIGNATURES)
    if (startsWith(head, bytes))
      throw new ImportFileError(`not a CSV or XLSX file: it is ${what}`, "not_csv_or_xlsx");
  const encoding = detectEncoding(head, complete);
  const text = iconv.decode(complete ? head : trimPartialUtf16(head, encoding), encoding);
  // Text has no NUL and few other control characters; binary data has plenty of both.
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) throw new ImportFileError("not a CSV or XLSX file: it holds binary data", "not_csv_or_xlsx");
    if (c < 32 && c !== 9 && c !== 10 && c !== 13) control++;
  }
  if (control > Math.max(8, text.length * 0.01))
    throw new ImportFileError("not a CSV or XLSX file: it holds binary data", "not_csv_or_xlsx");
  if (text.replace(/^\uFEFF/, "").trim() === "") throw new ImportFileError("the file is empty", "empty");
  return { kind: "text", encoding, text };
}

function trimPartialUtf16(buf: Buffer, encoding: CsvEncoding): Buffer {
  return encoding.startsWith("utf-16") && buf.length % 2 ? buf.subarray(0, buf.length - 1) : buf;
}

const DELIMITERS = [",", ";", "\t", "|"] as const;

/**
 * The delimiter of a CSV from its first line: Excel's `sep=;` hint line when there is one, else whichever of
 * `,` `;` tab `|` occurs most outside quotes (`,` when none does: a one-column file). European Excel writes `;`.
 */
export function detectDelimiter(text: string): { delimiter: string; sepLine: boolean } {
  const body = text.replace(/^\uFEFF/, "");
  const firstLine = body.slice(0, body.search(/\r|\n|$/));
  const sep = /^sep=(.)$/i.exec(firstLine);
  if (sep) return { delimiter: sep[1]!, sepLine: true };
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ",";
  for (const d of DELIMITERS) if (counts.get(d)! > counts.get(best)!) best = d;
  return { delimiter: best, sepLine: false };
}
