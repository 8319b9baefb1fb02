import { AppError, ErrorCode } from "@emailsvc/http";
import type { ImportFileInfo } from "@emailsvc/contracts";
import { openImportFile, type Cell, type Row } from "@emailsvc/imports";
import { objectSource } from "@emailsvc/provider";
import type { ImportDeps } from "./import-deps";

export interface FileSample {
  info: ImportFileInfo;
  header: string[];
  rows: Row[];
}

/**
 * The stored file's header and its first `n` data rows (the preview, and the content check of an email column),
 * read from S3 as a stream that is closed once they are read. ImportFileError when the file is unusable.
 */
export async function readSample(deps: ImportDeps, storageKey: string, n: number): Promise<FileSample> {
  const source = await objectSource(deps.s3, deps.bucket, storageKey);
  if (!source) throw new AppError(ErrorCode.NOT_FOUND, "The import's file is no longer stored");
  const file = await openImportFile(source);
  const rows: Row[] = [];
  try {
    for await (const batch of file.rows) {
      rows.push(...batch.slice(0, n - rows.length));
      if (rows.length >= n) break;
    }
  } finally {
    await file.close();
  }
  return { info: file.info, header: file.header, rows };
}

export const sampleCells = (s: FileSample): Cell[][] => s.rows.map((r) => r.cells);
