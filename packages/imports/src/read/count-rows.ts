import { scanCsvShape } from "../rows/csv-scan";
import { DEFAULT_FILE_LIMITS, type ImportFileLimits, openImportFile } from "./open-import-file";
import type { ImportSource } from "./source";

/**
 * The data rows of a file (its progress total), read before any row is imported, so a file that would fail
 * half-way (a 50 MB cell, a quote never closed) fails first. XLSX: the rows the ZIP-bomb check counted. CSV in
 * UTF-8 or Windows-1252: a byte scan (scanCsvShape), many times faster than parsing; UTF-16: a parse.
 */
export async function countDataRows(
  source: ImportSource,
  limits: ImportFileLimits = DEFAULT_FILE_LIMITS,
): Promise<number> {
  const file = await openImportFile(source, limits);
  if (file.estimatedRows !== null) {
    await file.close();
    return file.estimatedRows;
  }
  const encoding = file.info.encoding ?? "utf-8";
  if (encoding === "utf-8" || encoding === "windows-1252") {
    await file.close();
    const { records } = await scanCsvShape(await source.open(), {
      delimiter: file.info.delimiter ?? ",",
      maxRecordBytes: limits.maxRowChars,
    });
    return Math.max(0, records - (file.sepLine ? 1 : 0) - (file.hasHeader ? 1 : 0));
  }
  let n = 0;
  try {
    for await (const batch of file.rows) n += batch.length;
  } finally {
    await file.close();
  }
  return n;
}
