import type { ImportFileInfo } from "@emailsvc/contracts";
import { IMPORT_LIMITS } from "@emailsvc/contracts";
import { ImportFileError } from "../errors";
import { headerIsData } from "../mapping/mapping";
import { csvRows } from "../rows/csv-rows";
import type { Row } from "../rows/row";
import { DEFAULT_XLSX_LIMITS, planXlsx, xlsxRows, type XlsxLimits } from "../rows/xlsx-rows";
import { detectDelimiter, HEAD_BYTES, sniffFile } from "./sniff";
import { readRange, type ImportSource } from "./source";

export interface ImportFileLimits {
  maxColumns: number;
  maxRowChars: number;
  xlsx: XlsxLimits;
}

export const DEFAULT_FILE_LIMITS: ImportFileLimits = {
  maxColumns: IMPORT_LIMITS.maxColumns,
  maxRowChars: IMPORT_LIMITS.maxRowChars,
  xlsx: DEFAULT_XLSX_LIMITS,
};

/** An import file opened for reading: how it is read, its header, and its data rows. */
export interface OpenedImportFile {
  info: ImportFileInfo;
  /** The header's cells (`Column 1`, `Column 2`, … when the first row is data: it holds an email address). */
  header: string[];
  /** False when the first row holds an email address: it is data, and the header is made up. */
  hasHeader: boolean;
  /** CSV: the file starts with Excel's `sep=;` line (not a row). */
  sepLine: boolean;
  /** XLSX: data rows the sheet holds (exact unless some rows hold only empty cells); CSV: unknown until read. */
  estimatedRows: number | null;
  /** The data rows in batches, from the first one after the header; read once. */
  rows: AsyncGenerator<Row[]>;
  /** Stops reading (closes the underlying stream) when the rows are not read to the end. */
  close(): Promise<void>;
}

/**
 * Recognises the file (CSV in one of four encodings with one of four delimiters, or an XLSX workbook, anything
 * else refused with what it is), checks what must hold before a row is read (XLSX: not a ZIP bomb), and reads up
 * to its header. Throws ImportFileError with the user-safe reason.
 */
export async function openImportFile(
  source: ImportSource,
  limits: ImportFileLimits = DEFAULT_FILE_LIMITS,
): Promise<OpenedImportFile> {
  if (source.size === 0) throw new ImportFileError("the file is empty", "empty");
  const head = await readRange(source, 0, HEAD_BYTES - 1);
  const sniffed = sniffFile(head, source.size <= HEAD_BYTES);
  let info: ImportFileInfo;
  let rows: AsyncGenerator<Row[]>;
  let sheetRows: number | null = null;
  let hasSepLine = false;
  if (sniffed.kind === "zip") {
    const plan = await planXlsx(source, limits.xlsx);
    sheetRows = plan.sheetRows;
    info = { format: "xlsx", sheet: plan.sheetName };
    rows = xlsxRows(source, plan, limits.maxColumns);
  } else {
    const { delimiter, sepLine } = detectDelimiter(sniffed.text);
    hasSepLine = sepLine;
    info = { format: "csv", encoding: sniffed.encoding, delimiter };
    rows = csvRows(await source.open(), {
      encoding: sniffed.encoding,
      delimiter,
      sepLine,
      maxRowChars: limits.maxRowChars,
    });
  }
  let first: Row[] | undefined;
  try {
    const r = await rows.next();
    first = r.done ? undefined : r.value;
  } catch (err) {
    await rows.return(undefined);
    throw err;
  }
  const headerRow = first?.[0];
  if (!headerRow) {
    await rows.return(undefined);
    throw new ImportFileError("the file is empty", "empty");
  }
  if (headerRow.cells.length > limits.maxColumns) {
    await rows.return(undefined);
    throw new ImportFileError(
      `the header has ${headerRow.cells.length.toLocaleString("en-US")} columns; at most ${limits.maxColumns.toLocaleString("en-US")}`,
      "too_many_columns",
    );
  }
  const dataFirst = headerIsData(headerRow.cells);
  const header = dataFirst
    ? headerRow.cells.map((_, i) => `Column ${i + 1}`)
    : headerRow.cells.map((c) =>
        c === null
          ? ""
          : String(c)
              .trim()
              .replace(/^\uFEFF/, ""),
      );
  const firstData = dataFirst ? first! : first!.slice(1);
  async function* data(): AsyncGenerator<Row[]> {
    if (firstData.length) yield firstData;
    yield* rows;
  }
  return {
    info,
    header,
    hasHeader: !dataFirst,
    sepLine: hasSepLine,
    estimatedRows: sheetRows === null ? null : Math.max(0, sheetRows - (dataFirst ? 0 : 1)),
    rows: data(),
    close: async () => void (await rows.return(undefined)),
  };
}
