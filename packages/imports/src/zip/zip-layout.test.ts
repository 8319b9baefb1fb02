import zlib from "node:zlib";
import ExcelJS from "exceljs";
import { ImportFileError } from "../errors";
import { bufferSource } from "../read/source";
import { planXlsx, xlsxRows } from "../rows/xlsx-rows";

/**
 * Issue 49: exceljs's streaming reader acts on every local header it meets, so an entry the central directory
 * does not list (hidden in a gap, or inside another entry's range) escaped the ZIP-bomb check. Archives built by
 * hand here: each piece is a local entry, listed in the directory or not, at the offset the directory says.
 */
interface Piece {
  name: string;
  data: Buffer | string;
  /** not in the central directory: only its local header and data are in the file */
  hidden?: boolean;
  store?: boolean;
  /** the name written in the local header, when it differs from the directory's */
  localName?: string;
  /** added to the compressed size in the local header */
  localSizeDelta?: number;
}

function local(p: Piece) {
  const raw = Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data, "utf8");
  const body = p.store ? raw : zlib.deflateRawSync(raw, { level: 9 });
  const crc = zlib.crc32(raw) >>> 0;
  const name = Buffer.from(p.localName ?? p.name, "utf8");
  const head = Buffer.alloc(30);
  head.writeUInt32LE(0x04034b50, 0);
  head.writeUInt16LE(20, 4);
  head.writeUInt16LE(p.store ? 0 : 8, 8);
  head.writeUInt32LE(crc, 14);
  head.writeUInt32LE(body.length + (p.localSizeDelta ?? 0), 18);
  head.writeUInt32LE(raw.length, 22);
  head.writeUInt16LE(name.length, 26);
  return { bytes: Buffer.concat([head, name, body]), crc, compressed: body.length, size: raw.length };
}

function central(name: string, l: ReturnType<typeof local>, offset: number, store?: boolean) {
  const n = Buffer.from(name, "utf8");
  const c = Buffer.alloc(46);
  c.writeUInt32LE(0x02014b50, 0);
  c.writeUInt16LE(20, 4);
  c.writeUInt16LE(20, 6);
  c.writeUInt16LE(store ? 0 : 8, 10);
  c.writeUInt32LE(l.crc, 16);
  c.writeUInt32LE(l.compressed, 20);
  c.writeUInt32LE(l.size, 24);
  c.writeUInt16LE(n.length, 28);
  c.writeUInt32LE(offset, 42);
  return Buffer.concat([c, n]);
}

function zip(pieces: Piece[], extraCentral: Buffer[] = []): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const p of pieces) {
    const l = local(p);
    if (!p.hidden) centrals.push(central(p.name, l, offset, p.store));
    locals.push(l.bytes);
    offset += l.bytes.length;
  }
  centrals.push(...extraCentral);
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length, 8);
  end.writeUInt16LE(centrals.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const parts = (): Piece[] => [
  {
    name: "[Content_Types].xml",
    data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
  },
  {
    name: "xl/workbook.xml",
    data: `<?xml version="1.0"?><workbook ${NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  },
  {
    name: "xl/_rels/workbook.xml.rels",
    data: '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  },
  {
    name: "xl/worksheets/sheet1.xml",
    data: `<?xml version="1.0"?><worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row></sheetData></worksheet>`,
  },
  {
    name: "xl/sharedStrings.xml",
    data: `<?xml version="1.0"?><sst ${NS} count="2" uniqueCount="2"><si><t>email</t></si><si><t>a@example.com</t></si></sst>`,
  },
];

/** A shared-strings table of 1,000,000 strings (115 MB of XML, more as exceljs keeps them) deflated to a few hundred KB. */
const bombStrings = () =>
  Buffer.concat([
    Buffer.from(`<?xml version="1.0"?><sst ${NS}>`),
    Buffer.from(`<si><t>${"x".repeat(100)}</t></si>`.repeat(1_000_000)),
    Buffer.from("</sst>"),
  ]);

async function rowsOf(buf: Buffer) {
  const source = bufferSource(buf);
  const plan = await planXlsx(source);
  const out: unknown[][] = [];
  for await (const batch of xlsxRows(source, plan, 100)) out.push(...batch.map((r) => r.cells));
  return out;
}

async function refusal(buf: Buffer): Promise<ImportFileError> {
  const err = await rowsOf(buf).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportFileError);
  return err as ImportFileError;
}

describe("a ZIP whose entries do not tile the archive is refused, with a reason a user can act on", () => {
  it("reads the well-formed workbook (the pieces below are refused for what was changed, not for being hand-built)", async () => {
    expect(await rowsOf(zip(parts()))).toEqual([["email"], ["a@example.com"]]);
  });

  it("reads a workbook exceljs writes (data descriptors after each entry's data)", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Leads");
    ws.addRow(["email", "name"]);
    ws.addRow(["b@example.com", "Bea"]);
    const buf = Buffer.from(await wb.xlsx.writeBuffer());
    expect(await rowsOf(buf)).toEqual([
      ["email", "name"],
      ["b@example.com", "Bea"],
    ]);
  });

  it("a second xl/sharedStrings.xml (a ZIP bomb) hidden in a gap between listed entries: refused, memory stays flat", async () => {
    const p = parts();
    const buf = zip([
      ...p.slice(0, 3),
      { name: "xl/sharedStrings.xml", data: bombStrings(), hidden: true },
      ...p.slice(3),
    ]);
    global.gc?.();
    const rss = process.memoryUsage().rss;
    const err = await refusal(buf);
    expect(err.code).toBe("unreadable");
    expect(err.message).toMatch(
      /^the XLSX file cannot be read: it holds \d+ bytes its directory does not list, between xl\/_rels\/workbook\.xml\.rels and xl\/worksheets\/sheet1\.xml\. A file hidden there would escape the checks; save the workbook again from Excel$/,
    );
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
  });

  it("an entry inside another entry's bytes (overlapping entries): refused", async () => {
    // a stored entry whose data is a whole second entry, which the directory also lists at its own offset
    const inner = local({ name: "xl/styles.xml", data: `<styleSheet ${NS}/>`, store: true });
    const p = parts();
    const outer: Piece = { name: "docProps/app.xml", data: inner.bytes, store: true };
    const buf = zip([outer, ...p]);
    // the directory's last entries are the listed pieces; add one for the inner entry, 30 + name bytes in
    const withInner = zip(
      [outer, ...p],
      [central("xl/styles.xml", inner, 30 + "docProps/app.xml".length, true)],
    );
    expect(buf.length).toBeLessThan(withInner.length);
    const err = await refusal(withInner);
    expect(err.message).toMatch(
      /^the XLSX file cannot be read: its entries docProps\/app\.xml and xl\/styles\.xml overlap\./,
    );
  });

  it("a local header naming another file than the directory: refused", async () => {
    const p = parts();
    p[4] = { ...p[4]!, localName: "xl/sharedStringz.xml" };
    const err = await refusal(zip(p));
    expect(err.message).toMatch(
      /^the XLSX file cannot be read: its directory lists xl\/sharedStrings\.xml where the archive holds xl\/sharedStringz\.xml\./,
    );
  });

  it("a local header declaring another size than the directory: refused", async () => {
    const p = parts();
    p[3] = { ...p[3]!, localSizeDelta: 40 };
    const err = await refusal(zip(p));
    expect(err.message).toMatch(
      /^the XLSX file cannot be read: xl\/worksheets\/sheet1\.xml declares \d+ compressed bytes in its header and \d+ in the directory\./,
    );
  });

  it("a name the directory lists twice: refused", async () => {
    const p = parts();
    const l = local(p[4]!);
    const err = await refusal(zip(p, [central("xl/sharedStrings.xml", l, 0)]));
    expect(err.message).toMatch(/its directory lists xl\/sharedStrings\.xml twice/);
  });
});
