import { ImportFileError } from "../errors";
import { readRange, type ImportSource } from "../read/source";

/** One file of a ZIP archive, from its central directory. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated */
  method: number;
  compressedSize: number;
  /** as the archive declares it (a ZIP bomb may lie: the verifier counts what inflates) */
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const TAIL = 22 + 65_535;
/** A workbook's directory lists a few dozen files; this is far beyond any real one. */
const MAX_DIRECTORY_BYTES = 4 * 1024 * 1024;

const unreadable = (why: string) => new ImportFileError(`the XLSX file cannot be read: ${why}`, "unreadable");

/**
 * The archive's central directory, read with two ranged reads at the end of the file (never the whole file). ZIP64
 * archives are refused: a workbook under the upload cap never needs one, and its 64-bit sizes are what bombs
 * declare.
 */
export async function readZipDirectory(
  source: ImportSource,
): Promise<{ entries: ZipEntry[]; directoryOffset: number }> {
  const tailStart = Math.max(0, source.size - TAIL);
  const tail = await readRange(source, tailStart, source.size - 1);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) throw unreadable("it is not a complete ZIP archive");
  const count = tail.readUInt16LE(at + 10);
  const size = tail.readUInt32LE(at + 12);
  const offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff)
    throw new ImportFileError(
      "the XLSX file is a ZIP64 archive, which no workbook of this size needs",
      "zip_bomb",
    );
  if (size > MAX_DIRECTORY_BYTES || offset + size > source.size) throw unreadable("its directory is damaged");
  const dir = await readRange(source, offset, offset + size - 1);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) throw unreadable("its directory is damaged");
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    entries.push({
      method: dir.readUInt16LE(p + 10),
      compressedSize: dir.readUInt32LE(p + 20),
      uncompressedSize: dir.readUInt32LE(p + 24),
      localHeaderOffset: dir.readUInt32LE(p + 42),
      name: dir.toString("utf8", p + 46, p + 46 + nameLength),
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return { entries, directoryOffset: offset };
}

/** Where an entry's compressed bytes start: after its local header, whose name and extra field lengths it gives. */
export async function entryDataOffset(source: ImportSource, entry: ZipEntry): Promise<number> {
  const header = await readRange(source, entry.localHeaderOffset, entry.localHeaderOffset + 29);
  if (header.length < 30 || header.readUInt32LE(0) !== 0x04034b50)
    throw unreadable(`${entry.name} is damaged`);
  return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
}
