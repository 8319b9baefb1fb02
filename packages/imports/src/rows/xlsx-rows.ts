import { Readable } from "node:stream";
import zlib from "node:zlib";
import ExcelJS from "exceljs";
import { ImportFileError } from "../errors";
import { type ImportSource } from "../read/source";
import { checkZipLayout, readZipDirectory, type ZipEntry } from "../zip/central-directory";
import { inflateEntry, scanEntry } from "../zip/inflate-entry";
import { isBlank, ROW_BATCH, type Cell, type Row } from "./row";

/** What a workbook may inflate to; beyond it the file fails as a probable ZIP bomb. */
export interface XlsxLimits {
  /** The worksheet's XML. */
  maxSheetBytes: number;
  /** The shared-strings table's XML (exceljs keeps the strings in memory). */
  maxSharedStringsBytes: number;
  /** Inflated bytes per compressed byte. */
  maxRatio: number;
  /** One row's (or shared string's) XML. */
  maxRowBytes: number;
  /** Cells of one row: Excel's own maximum is 16,384 columns. */
  maxCells: number;
}

export const DEFAULT_XLSX_LIMITS: XlsxLimits = {
  maxSheetBytes: 2 * 1024 * 1024 * 1024,
  maxSharedStringsBytes: 256 * 1024 * 1024,
  maxRatio: 200,
  maxRowBytes: 4 * 1024 * 1024,
  maxCells: 16_384,
};
const SMALL_PART_BYTES = 16 * 1024 * 1024;

const notXlsx = (what: string) =>
  new ImportFileError(`not a CSV or XLSX file: it is ${what}`, "not_csv_or_xlsx");

/** The workbook's parts this reader needs, in the order exceljs must meet them, and the worksheet's name. */
export interface XlsxPlan {
  sheetName: string;
  /** The parts in the order exceljs reads them, each with where its compressed data starts. */
  parts: { entry: ZipEntry; dataStart: number }[];
  sheet: ZipEntry;
  /** `<row>` elements of the sheet (rows with cells; the header among them) */
  sheetRows: number;
  /** The workbook has no shared-strings table: an empty one is added so exceljs never spills the sheet to disk. */
  addSharedStrings: boolean;
}

async function entryText(source: ImportSource, entry: ZipEntry): Promise<string> {
  await scanEntry(source, entry, { maxBytes: SMALL_PART_BYTES, maxRatio: 1000 });
  const parts: Buffer[] = [];
  for await (const chunk of await inflateEntry(source, entry)) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/**
 * Reads the ZIP's directory, refuses what is not a workbook, picks the first worksheet (in the workbook's order),
 * and inflates every part exceljs will read once, counting (`scanEntry`): a ZIP bomb, a row of 50 MB or of a
 * million cells fails the file here with a clear reason instead of exhausting memory or disk later.
 */
export async function planXlsx(
  source: ImportSource,
  limits: XlsxLimits = DEFAULT_XLSX_LIMITS,
): Promise<XlsxPlan> {
  const { entries, directoryOffset } = await readZipDirectory(source);
  const layout = await checkZipLayout(source, entries, directoryOffset);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const workbook = byName.get("xl/workbook.xml");
  if (!workbook) {
    if (byName.has("word/document.xml")) throw notXlsx("a Word document");
    if (entries.some((e) => e.name.startsWith("ppt/"))) throw notXlsx("a PowerPoint presentation");
    if (byName.has("content.xml")) throw notXlsx("an OpenDocument file: save it as .xlsx or CSV");
    throw notXlsx("a ZIP archive, not an Excel workbook");
  }
  const rels = byName.get("xl/_rels/workbook.xml.rels");
  if (!rels)
    throw new ImportFileError(
      "the XLSX file cannot be read: its workbook has no relationships",
      "unreadable",
    );
  const [bookXml, relsXml] = [await entryText(source, workbook), await entryText(source, rels)];
  const targets = new Map<string, string>();
  for (const m of relsXml.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = attr(m[0], "Id");
    const target = attr(m[0], "Target");
    if (id && target) targets.set(id, target.startsWith("/") ? target.slice(1) : `xl/${target}`);
  }
  let sheet: ZipEntry | undefined;
  let sheetName = "";
  for (const m of bookXml.matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const target = targets.get(attr(m[0], "r:id") ?? "");
    const entry = target ? byName.get(target) : undefined;
    if (entry && /^xl\/worksheets\/sheet\d+\.xml$/.test(entry.name)) {
      sheet = entry;
      sheetName = attr(m[0], "name") ?? "";
      break;
    }
  }
  if (!sheet) throw new ImportFileError("the XLSX file has no worksheet", "empty");
  const shared = byName.get("xl/sharedStrings.xml");
  const styles = byName.get("xl/styles.xml");
  if (shared)
    await scanEntry(source, shared, {
      maxBytes: limits.maxSharedStringsBytes,
      maxRatio: limits.maxRatio,
      tag: "si",
      maxItemBytes: limits.maxRowBytes,
    });
  if (styles) await scanEntry(source, styles, { maxBytes: SMALL_PART_BYTES, maxRatio: 1000 });
  const sheetScan = await scanEntry(source, sheet, {
    maxBytes: limits.maxSheetBytes,
    maxRatio: limits.maxRatio,
    tag: "row",
    maxItemBytes: limits.maxRowBytes,
    maxCells: limits.maxCells,
  });
  const order = [rels, workbook, styles, shared, sheet].filter((e): e is ZipEntry => e !== undefined);
  return {
    sheetName,
    parts: order.map((entry) => ({ entry, dataStart: layout.get(entry)!.dataStart })),
    sheet,
    sheetRows: sheetScan.items,
    addSharedStrings: !shared,
  };
}

/**
 * A local file header of our own making, sizes and checksum in it (no data descriptor, no extra field): exceljs
 * reads exactly `compressedSize` bytes after it, so nothing but the checked data reaches it.
 */
function localHeader(e: Pick<ZipEntry, "name" | "method" | "crc32" | "compressedSize" | "uncompressedSize">) {
  const nameBytes = Buffer.from(e.name, "utf8");
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(0x0800, 6); // the name is UTF-8
  header.writeUInt16LE(e.method, 8);
  header.writeUInt32LE(e.crc32 >>> 0, 14);
  header.writeUInt32LE(e.compressedSize, 18);
  header.writeUInt32LE(e.uncompressedSize, 22);
  header.writeUInt16LE(nameBytes.length, 26);
  return Buffer.concat([header, nameBytes]);
}

/** A stored ZIP entry (no compression) holding `content`, as a local file header and its bytes. */
function storedEntry(name: string, content: string): Buffer {
  const data = Buffer.from(content, "utf8");
  const size = data.length;
  return Buffer.concat([
    localHeader({ name, method: 0, crc32: zlib.crc32(data), compressedSize: size, uncompressedSize: size }),
    data,
  ]);
}

const EMPTY_SST =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>';

/**
 * The workbook's needed parts as one ZIP stream in the order exceljs wants them (its own directory is not read),
 * rebuilt from the checked entries: a header of our own, then the entry's compressed data and nothing else, so
 * no byte the checks did not cover (a second local header hidden after the data) reaches exceljs.
 */
function partsStream(source: ImportSource, plan: XlsxPlan): Readable {
  async function* bytes() {
    for (const { entry, dataStart } of plan.parts) {
      if (entry === plan.sheet && plan.addSharedStrings) yield storedEntry("xl/sharedStrings.xml", EMPTY_SST);
      yield localHeader(entry);
      if (entry.compressedSize === 0) continue;
      const last = dataStart + entry.compressedSize - 1;
      for await (const chunk of await source.open({ start: dataStart, end: last })) yield chunk as Buffer;
    }
  }
  return Readable.from(bytes());
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** An exceljs cell value as an import cell: dates as ISO 8601, formulas as their result, rich text as text. */
function cellOf(value: ExcelJS.CellValue, numFmt: string | undefined): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") {
    // A number shown with leading zeros (format 00000: zip codes, ids) keeps them.
    if (numFmt && /^0+$/.test(numFmt) && Number.isInteger(value) && value >= 0)
      return String(value).padStart(numFmt.length, "0");
    return value;
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    const midnight =
      value.getUTCHours() === 0 &&
      value.getUTCMinutes() === 0 &&
      value.getUTCSeconds() === 0 &&
      value.getUTCMilliseconds() === 0;
    return midnight
      ? `${value.getUTCFullYear()}-${pad2(value.getUTCMonth() + 1)}-${pad2(value.getUTCDate())}`
      : value.toISOString();
  }
  if (typeof value === "object") {
    if ("richText" in value) return value.richText.map((r) => r.text).join("");
    if ("result" in value) return cellOf((value.result ?? null) as ExcelJS.CellValue, numFmt);
    if ("text" in value) return typeof value.text === "string" ? value.text : null;
    if ("error" in value) return null;
  }
  return String(value as unknown);
}

/**
 * The non-blank rows of the workbook's first worksheet, in batches, each with its row number: exceljs's streaming
 * WorkbookReader over the parts `planXlsx` checked. Cells beyond `maxColumns` are dropped (the header is checked
 * against the limit on its own).
 */
export async function* xlsxRows(
  source: ImportSource,
  plan: XlsxPlan,
  maxColumns: number,
): AsyncGenerator<Row[]> {
  const input = partsStream(source, plan);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: "emit",
    sharedStrings: "cache",
    styles: "cache",
    hyperlinks: "ignore",
    entries: "ignore",
  });
  let batch: Row[] = [];
  try {
    for await (const worksheet of reader) {
      for await (const row of worksheet) {
        const cells: Cell[] = [];
        let width = 0;
        row.eachCell({ includeEmpty: false }, (cell, col) => {
          if (col > maxColumns + 1) return;
          cells[col - 1] = cellOf(cell.value, cell.numFmt);
          width = Math.max(width, col);
        });
        for (let i = 0; i < width; i++) if (cells[i] === undefined) cells[i] = null;
        if (isBlank(cells)) continue;
        batch.push({ line: row.number, cells });
        if (batch.length >= ROW_BATCH) {
          yield batch;
          batch = [];
        }
      }
      break; // the first worksheet only (the plan holds no other)
    }
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(
      `the XLSX file cannot be read: ${err instanceof Error ? err.message : String(err)}`,
      "unreadable",
    );
  } finally {
    input.destroy();
  }
  if (batch.length) yield batch;
}
