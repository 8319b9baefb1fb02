import { ImportFileError } from "../errors";
import { readRange, type ImportSource } from "../read/source";

/** One file of a ZIP archive, from its central directory. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated */
  method: number;
  /** general purpose flags: bit 0 encrypted, bit 3 sizes in a data descriptor after the data */
  flags: number;
  crc32: number;
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
      flags: dir.readUInt16LE(p + 8),
      crc32: dir.readUInt32LE(p + 16),
      compressedSize: dir.readUInt32LE(p + 20),
      uncompressedSize: dir.readUInt32LE(p + 24),
      localHeaderOffset: dir.readUInt32LE(p + 42),
      name: dir.toString("utf8", p + 46, p + 46 + nameLength),
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return { entries, directoryOffset: offset };
}

const LOCAL = 0x04034b50;
const DESCRIPTOR = 0x08074b50;
/** A workbook lists a few dozen files; each is checked with a ranged read of its local header. */
const MAX_ENTRIES = 2000;
const hidden = (why: string) =>
  unreadable(`${why}. A file hidden there would escape the checks; save the workbook again from Excel`);

/** An entry's local header as the archive holds it, and where its data and the bytes after them lie. */
export interface CheckedEntry {
  entry: ZipEntry;
  /** the compressed data's first byte */
  dataStart: number;
  /** the byte after the data (and after its data descriptor, when bit 3 is set) */
  end: number;
}

async function checkLocal(source: ImportSource, e: ZipEntry): Promise<CheckedEntry> {
  const nameBytes = Buffer.byteLength(e.name, "utf8");
  const head = await readRange(source, e.localHeaderOffset, e.localHeaderOffset + 29 + nameBytes);
  if (head.length < 30 + nameBytes || head.readUInt32LE(0) !== LOCAL)
    throw unreadable(`the directory points ${e.name} at bytes that are not a file header`);
  const localName = head.toString("utf8", 30, 30 + head.readUInt16LE(26));
  if (localName !== e.name)
    throw hidden(`its directory lists ${e.name} where the archive holds ${localName}`);
  const flags = head.readUInt16LE(6);
  if ((e.flags | flags) & 1) throw unreadable(`${e.name} is encrypted`);
  if (head.readUInt16LE(8) !== e.method)
    throw hidden(`${e.name} is compressed one way in its header and another in the directory`);
  const dataStart = e.localHeaderOffset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
  let end = dataStart + e.compressedSize;
  const declared = [head.readUInt32LE(14), head.readUInt32LE(18), head.readUInt32LE(22)];
  if (flags & 8) {
    // the sizes follow the data (an optional signature, CRC, compressed and uncompressed size)
    const d = await readRange(source, end, end + 15);
    const at = d.length >= 4 && d.readUInt32LE(0) === DESCRIPTOR ? 4 : 0;
    if (d.length < at + 12) throw hidden(`${e.name} has no data descriptor after its data`);
    declared.splice(0, 3, d.readUInt32LE(at), d.readUInt32LE(at + 4), d.readUInt32LE(at + 8));
    end += at + 12;
  }
  const [crc, compressed, size] = declared as [number, number, number];
  if (compressed !== e.compressedSize || size !== e.uncompressedSize || crc !== e.crc32)
    throw hidden(
      `${e.name} declares ${compressed} compressed bytes in its header and ${e.compressedSize} in the directory` +
        (compressed === e.compressedSize ? " (its size or checksum differs)" : ""),
    );
  return { entry: e, dataStart, end };
}

/**
 * Checks that the archive's local headers and its central directory agree, and that the listed entries tile the
 * bytes before the directory: no gap (where an entry the directory does not list could hide, which exceljs's
 * streaming reader, acting on every local header it meets, would read), no overlap, no name listed twice. Returns
 * each entry's data range, which is all of it that is handed on.
 */
export async function checkZipLayout(
  source: ImportSource,
  entries: ZipEntry[],
  directoryOffset: number,
): Promise<Map<ZipEntry, CheckedEntry>> {
  if (entries.length > MAX_ENTRIES)
    throw unreadable(`it lists ${entries.length} files, more than any workbook (${MAX_ENTRIES})`);
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name)) throw hidden(`its directory lists ${e.name} twice`);
    names.add(e.name);
  }
  const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  const checked: CheckedEntry[] = [];
  for (let i = 0; i < sorted.length; i += 16)
    checked.push(...(await Promise.all(sorted.slice(i, i + 16).map((e) => checkLocal(source, e)))));
  let expected = 0;
  let before = "the start of the file";
  for (const c of checked) {
    if (c.entry.localHeaderOffset > expected)
      throw hidden(
        `it holds ${c.entry.localHeaderOffset - expected} bytes its directory does not list, between ${before} and ${c.entry.name}`,
      );
    if (c.entry.localHeaderOffset < expected)
      throw hidden(`its entries ${before} and ${c.entry.name} overlap`);
    expected = c.end;
    before = c.entry.name;
  }
  if (directoryOffset > expected)
    throw hidden(
      `it holds ${directoryOffset - expected} bytes its directory does not list, between ${before} and the directory`,
    );
  if (directoryOffset < expected) throw hidden(`its entry ${before} overlaps the directory`);
  return new Map(checked.map((c) => [c.entry, c]));
}

/** Where an entry's compressed bytes start: after its local header, whose name and extra field lengths it gives. */
export async function entryDataOffset(source: ImportSource, entry: ZipEntry): Promise<number> {
  const header = await readRange(source, entry.localHeaderOffset, entry.localHeaderOffset + 29);
  if (header.length < 30 || header.readUInt32LE(0) !== 0x04034b50)
    throw unreadable(`${entry.name} is damaged`);
  return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
}
