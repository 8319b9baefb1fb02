import { pipeline, type Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import iconv from "iconv-lite";
import { ImportFileError } from "../errors";
import type { CsvEncoding } from "../read/sniff";
import { isBlank, ROW_BATCH, type Row } from "./row";

export interface CsvReadOptions {
  encoding: CsvEncoding;
  delimiter: string;
  /** The file starts with Excel's `sep=;` line: reading starts on line 2. */
  sepLine: boolean;
  /** A row longer than this (in characters, quoted newlines included) fails the file. */
  maxRowChars: number;
}

const mb = (n: number) =>
  n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;

/** csv-parse's errors as the user-safe reasons a job fails with. */
function fileErrorOf(err: unknown, maxRowChars: number): unknown {
  if (!(err instanceof CsvError)) return err;
  const at = (err as CsvError & { lines?: number }).lines;
  const where = at ? `line ${at}: ` : "";
  switch (err.code) {
    case "CSV_MAX_RECORD_SIZE":
      return new ImportFileError(`${where}a row is larger than ${mb(maxRowChars)}`, "row_too_large");
    case "CSV_QUOTE_NOT_CLOSED":
      return new ImportFileError(`${where}a quoted field is never closed`, "unreadable");
    default:
      return new ImportFileError(`${where}the CSV cannot be read: ${err.message}`, "unreadable");
  }
}

/**
 * The non-blank rows of a CSV stream, in batches, each with the line it starts on. UTF-8 bytes go to csv-parse as
 * they are (it strips the byte-order mark); other encodings are decoded by iconv-lite first. Quoted fields may
 * hold delimiters and newlines (CRLF or LF); rows may have fewer or more cells than the header.
 */
export async function* csvRows(stream: Readable, opts: CsvReadOptions): AsyncGenerator<Row[]> {
  const parser = parse({
    delimiter: opts.delimiter,
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    max_record_size: opts.maxRowChars,
    from_line: opts.sepLine ? 2 : 1,
  });
  const stages: NodeJS.ReadWriteStream[] =
    opts.encoding === "utf-8" ? [] : [iconv.decodeStream(opts.encoding)];
  pipeline([stream, ...stages, parser] as unknown as [Readable, NodeJS.WritableStream], () => undefined);
  // Lines are counted here: csv-parse's `info` per record cost a third of the parse time.
  let line = opts.sepLine ? 2 : 1;
  let batch: Row[] = [];
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const start = line;
      line++;
      for (const cell of record) {
        if (cell.length > 0 && cell.indexOf("\n") !== -1) line += cell.split("\n").length - 1;
      }
      if (isBlank(record)) continue;
      batch.push({ line: start, cells: record });
      if (batch.length >= ROW_BATCH) {
        yield batch;
        batch = [];
      }
    }
  } catch (err) {
    throw fileErrorOf(err, opts.maxRowChars);
  } finally {
    stream.destroy();
    parser.destroy();
  }
  if (batch.length) yield batch;
}
