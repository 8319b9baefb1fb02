import { pipeline, Readable } from "node:stream";
import zlib from "node:zlib";
import { ImportFileError } from "../errors";
import type { ImportSource } from "../read/source";
import { entryDataOffset, type ZipEntry } from "./central-directory";

/** The entry's bytes as they inflate (one ranged read of its compressed data). */
export async function inflateEntry(source: ImportSource, entry: ZipEntry): Promise<Readable> {
  if (entry.method !== 0 && entry.method !== 8)
    throw new ImportFileError(
      `the XLSX file cannot be read: ${entry.name} uses an unsupported compression (${entry.method})`,
      "unreadable",
    );
  const start = await entryDataOffset(source, entry);
  if (entry.compressedSize === 0) return Readable.from([]);
  const raw = await source.open({ start, end: start + entry.compressedSize - 1 });
  if (entry.method === 0) return raw;
  const inflate = zlib.createInflateRaw();
  pipeline(raw, inflate, () => undefined);
  return inflate;
}

/** What the scan of one entry's XML found. */
export interface EntryScan {
  bytes: number;
  /** elements of `tag` (rows of a sheet, strings of the shared-strings table) */
  items: number;
}

export interface EntryLimits {
  /** Inflated bytes of this entry at most. */
  maxBytes: number;
  /** Inflated bytes per compressed byte at most (real workbooks: 5 to 50; ZIP bombs: about 1,000). */
  maxRatio: number;
  /** The repeated element checked one by one (`row` in a sheet, `si` in the shared strings). */
  tag?: "row" | "si";
  /** Bytes of one such element at most (a 50 MB cell). */
  maxItemBytes?: number;
  /** Cells (`<c>`) of one row at most. */
  maxCells?: number;
}

const LT = 0x3c;
const SLASH = 0x2f;
const GT = 0x3e;
const SPACE = 0x20;
const isEnd = (b: number | undefined) =>
  b === SPACE || b === GT || b === SLASH || b === 0x0a || b === 0x0d || b === 0x09;

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;

/**
 * Inflates an entry to nothing, counting: its size (the archive's declared size is not trusted), and with `tag`
 * the size and cells of each element. A ZIP bomb or a giant row fails here, before exceljs reads a byte: inflating
 * the same bytes again later gives the same result, so what passed this check is what exceljs gets.
 */
export async function scanEntry(
  source: ImportSource,
  entry: ZipEntry,
  limits: EntryLimits,
): Promise<EntryScan> {
  const cap = Math.min(limits.maxBytes, entry.compressedSize * limits.maxRatio + 1024 * 1024);
  const stream = await inflateEntry(source, entry);
  const open = limits.tag ? Buffer.from(`<${limits.tag}`) : null;
  const close = limits.tag ? Buffer.from(`</${limits.tag}>`) : null;
  let bytes = 0;
  let items = 0;
  let itemStart = -1;
  let cells = 0;
  let carry: Buffer = Buffer.alloc(0);
  const bomb = () =>
    new ImportFileError(
      `the XLSX file inflates ${entry.name} beyond ${mb(cap)} (${mb(entry.compressedSize)} compressed): a ZIP bomb?`,
      "zip_bomb",
    );
  const endItem = (at: number) => {
    if (limits.maxItemBytes && at - itemStart > limits.maxItemBytes)
      throw new ImportFileError(
        `${limits.tag === "row" ? `row ${items} of the sheet` : `shared string ${items}`} holds more than ${mb(limits.maxItemBytes)}`,
        "row_too_large",
      );
    itemStart = -1;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const base = bytes - carry.length;
      bytes += chunk.length;
      if (bytes > cap) throw bomb();
      if (!open || !close) continue;
      const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      let i = buf.indexOf(LT);
      let keepFrom = buf.length;
      while (i !== -1) {
        if (i + close.length + 1 > buf.length) {
          keepFrom = i; // the tag may continue in the next chunk
          break;
        }
        if (buf[i + 1] === SLASH) {
          if (itemStart >= 0 && buf.compare(close, 0, close.length, i, i + close.length) === 0)
            endItem(base + i);
        } else if (
          buf.compare(open, 0, open.length, i, i + open.length) === 0 &&
          isEnd(buf[i + open.length])
        ) {
          if (itemStart >= 0) endItem(base + i); // the previous one was self-closing (`<row r="3"/>`)
          items++;
          itemStart = base + i;
          cells = 0;
        } else if (itemStart >= 0 && limits.maxCells && buf[i + 1] === 0x63 /* c */ && isEnd(buf[i + 2])) {
          if (++cells > limits.maxCells)
            throw new ImportFileError(
              `row ${items} of the sheet has more than ${limits.maxCells.toLocaleString("en-US")} cells`,
              "too_many_columns",
            );
        }
        i = buf.indexOf(LT, i + 1);
      }
      carry = keepFrom < buf.length ? Buffer.from(buf.subarray(keepFrom)) : Buffer.alloc(0);
      if (itemStart >= 0 && limits.maxItemBytes && bytes - itemStart > limits.maxItemBytes) endItem(bytes);
    }
  } finally {
    stream.destroy();
  }
  return { bytes, items };
}
