import type { Readable } from "node:stream";
import { ImportFileError } from "../errors";

export interface CsvShape {
  /** Records holding something besides delimiters and blanks (the header included). */
  records: number;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

// States of the record scanner (csv-parse's rules with relax_quotes: a quote opens a field only at its start).
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;

const mb = (n: number) =>
  n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;

/**
 * Counts a CSV's records from its bytes, without parsing fields: one pass at memory speed over an ASCII-compatible
 * encoding (UTF-8, Windows-1252), tracking quotes so quoted newlines do not end a record. It also fails, before a
 * row is imported, what the parse would fail later: a record larger than `maxRecordBytes` (a 50 MB cell) or a
 * quote never closed. csv-parse then reads the file for real; this count is the job's total for progress.
 */
export async function scanCsvShape(
  stream: Readable,
  opts: { delimiter: string; maxRecordBytes: number },
): Promise<CsvShape> {
  const delimiter = opts.delimiter.charCodeAt(0);
  let state = FIELD_START;
  let records = 0;
  let content = false;
  let recordBytes = 0;
  let line = 1;
  let recordLine = 1;
  let quoteLine = 0;
  const tooLarge = () =>
    new ImportFileError(
      `line ${recordLine}: a row is larger than ${mb(opts.maxRecordBytes)}`,
      "row_too_large",
    );
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!;
        if (b === LF) {
          line++;
          if (state === QUOTED) continue;
          if (content) records++;
          content = false;
          state = FIELD_START;
          recordBytes = 0;
          recordLine = line;
          continue;
        }
        if (++recordBytes > opts.maxRecordBytes) throw tooLarge();
        switch (state) {
          case FIELD_START:
            if (b === QUOTE) {
              state = QUOTED;
              quoteLine = line;
            } else if (b !== delimiter) {
              state = UNQUOTED;
              if (b !== SPACE && b !== TAB && b !== CR) content = true;
            }
            break;
          case UNQUOTED:
            if (b === delimiter) state = FIELD_START;
            else if (b !== SPACE && b !== TAB && b !== CR) content = true;
            break;
          case QUOTED:
            if (b === QUOTE) state = QUOTE_IN_QUOTED;
            else content = true;
            break;
          default: // QUOTE_IN_QUOTED
            if (b === QUOTE) {
              state = QUOTED; // an escaped quote
              content = true;
            } else if (b === delimiter) state = FIELD_START;
            else if (b !== CR) state = UNQUOTED;
        }
      }
    }
  } finally {
    stream.destroy();
  }
  if (state === QUOTED)
    throw new ImportFileError(`line ${quoteLine}: a quoted field is never closed`, "unreadable");
  if (content) records++;
  return { records };
}
