import fs from "node:fs";
import { Readable } from "node:stream";

/**
 * The uploaded file, read as streams: from S3 in the services (a ranged GET per call), from a buffer or a path in
 * tests and benchmarks. Nothing here holds a whole file: XLSX needs a few ranged reads (the ZIP's directory at the
 * end, then its entries), CSV one pass from the start.
 */
export interface ImportSource {
  /** Bytes in the file. */
  size: number;
  /** The bytes from `start` to `end` inclusive (an HTTP range), or the whole file. */
  open(range?: { start: number; end: number }): Promise<Readable>;
}

/** Up to `end - start + 1` bytes into memory: only for the small pieces (the head, a ZIP header or directory). */
export async function readRange(source: ImportSource, start: number, end: number): Promise<Buffer> {
  if (end < start || start >= source.size) return Buffer.alloc(0);
  const stream = await source.open({ start, end: Math.min(end, source.size - 1) });
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

export function bufferSource(buf: Buffer): ImportSource {
  return {
    size: buf.length,
    open: async (range) => Readable.from([range ? buf.subarray(range.start, range.end + 1) : buf]),
  };
}

export function fileSource(path: string): ImportSource {
  return {
    size: fs.statSync(path).size,
    open: async (range) =>
      fs.createReadStream(path, {
        highWaterMark: 256 * 1024,
        ...(range ? { start: range.start, end: range.end } : {}),
      }),
  };
}
