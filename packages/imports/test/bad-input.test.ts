// Hostile and broken files get a clear ImportFileError (the job's failure reason), with memory and time bounded;
// the services turn it into a failed job and never crash. No database here.
import { randomBytes } from "node:crypto";
import ExcelJS from "exceljs";
import { DEFAULT_IMPORT_OPTIONS } from "@emailsvc/contracts";
import {
  bufferSource,
  createRowReader,
  ImportFileError,
  openImportFile,
  resolveMapping,
  type Row,
} from "../src";
import { buildZip, inlineRow, sheetXml, workbookParts } from "@emailsvc/testing";

async function readAll(buf: Buffer): Promise<{ header: string[]; rows: Row[] }> {
  const file = await openImportFile(bufferSource(buf));
  const rows: Row[] = [];
  for await (const batch of file.rows) rows.push(...batch);
  return { header: file.header, rows };
}

async function failure(buf: Buffer): Promise<ImportFileError> {
  try {
    await readAll(buf);
  } catch (err) {
    if (err instanceof ImportFileError) return err;
    throw err;
  }
  throw new Error("the file was read without an error");
}

describe("files that are not contact lists", () => {
  it("a binary file named .csv", async () => {
    const err = await failure(randomBytes(200_000));
    expect(err.code).toBe("not_csv_or_xlsx");
    expect(err.message).toBe("not a CSV or XLSX file: it holds binary data");
  });

  it.each([
    [Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj"), "not a CSV or XLSX file: it is a PDF document"],
    [Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), "not a CSV or XLSX file: it is a PNG image"],
    [
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]),
      "not a CSV or XLSX file: it is a legacy Office file (Excel 97-2003 .xls?): save it as .xlsx or CSV",
    ],
    [
      buildZip([{ name: "word/document.xml", data: "<w:document/>" }]),
      "not a CSV or XLSX file: it is a Word document",
    ],
    [
      buildZip([{ name: "photo.jpg", data: "x" }]),
      "not a CSV or XLSX file: it is a ZIP archive, not an Excel workbook",
    ],
  ])("%#: names what the file is", async (buf, message) => {
    const err = await failure(buf);
    expect(err.message).toBe(message);
    expect(err.code).toBe("not_csv_or_xlsx");
  });

  it("an empty file, and one of blank lines", async () => {
    expect((await failure(Buffer.alloc(0))).message).toBe("the file is empty");
    expect((await failure(Buffer.from("\r\n\r\n  \r\n"))).code).toBe("empty");
    expect((await failure(Buffer.from("\ufeff", "utf8"))).code).toBe("empty");
  });

  it("a file of only headers opens, with no rows (the upload and the scheduler fail it as no_rows)", async () => {
    const { header, rows } = await readAll(Buffer.from("email,first_name,last_name\r\n"));
    expect(header).toEqual(["email", "first_name", "last_name"]);
    expect(rows).toEqual([]);
  });

  it("a file without an email column", async () => {
    const { header, rows } = await readAll(Buffer.from("name,city\nAda,London\n"));
    expect(() =>
      resolveMapping(
        header,
        {},
        rows.map((r) => r.cells),
      ),
    ).toThrow('no column holds email addresses: name one in the mapping option (e.g. {"Contact": "email"})');
  });
});

describe("CSV beyond its limits", () => {
  it("a 50 MB cell fails the file at its line, reading at most one row's worth", async () => {
    const before = process.memoryUsage().rss;
    const buf = Buffer.concat([
      Buffer.from("email,notes\na@example.com,short\nb@example.com,"),
      Buffer.alloc(50 * 1024 * 1024, "x"),
      Buffer.from("\nc@example.com,after\n"),
    ]);
    const err = await failure(buf);
    expect(err.code).toBe("row_too_large");
    expect(err.message).toBe("line 3: a row is larger than 1 MB");
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it("a header of 1,000,000 columns fails the file", async () => {
    const err = await failure(Buffer.from("email" + ",".repeat(999_999) + "\na@example.com\n"));
    expect(err.code).toBe("too_many_columns");
    expect(err.message).toBe("the header has 1,000,000 columns; at most 1,000");
  });

  it("a data row of 1,000,000 columns is one rejected row, and the rows after it are read", async () => {
    const { header, rows } = await readAll(
      Buffer.from("email,name\n" + "a@example.com,A" + ",".repeat(999_998) + "x\nb@example.com,B\n"),
    );
    expect(rows.map((r) => r.line)).toEqual([2, 3]);
    const read = createRowReader(resolveMapping(header, {}), DEFAULT_IMPORT_OPTIONS);
    expect(read(rows[0]!)).toEqual({
      ok: false,
      line: 2,
      reason: "has 1000000 cells; the header has 2 (an unquoted delimiter?)",
    });
    expect(read(rows[1]!)).toMatchObject({ ok: true, lead: { email: "b@example.com", firstName: "B" } });
  });

  it("a quoted field never closed", async () => {
    const err = await failure(Buffer.from('email,name\na@example.com,"Ada\nb@example.com,B\n'));
    expect(err.message).toMatch(/^line \d+: a quoted field is never closed$/);
  });
});

describe("XLSX bombs and giants", () => {
  const BOMB_ROW = '<row><c t="inlineStr"><is><t>a@b.co</t></is></c></row>';

  it("a ZIP bomb (a sheet inflating 1,000 to 1) fails before exceljs reads it", async () => {
    // Identical rows compress about 1,000 to 1: 40 MB of XML in about 40 KB.
    const rows = inlineRow(1, ["email"]) + BOMB_ROW.repeat(800_000);
    const bomb = buildZip(workbookParts(sheetXml(rows)));
    expect(bomb.length).toBeLessThan(200_000);
    const err = await failure(bomb);
    expect(err.code).toBe("zip_bomb");
    expect(err.message).toMatch(
      /^the XLSX file inflates xl\/worksheets\/sheet1\.xml beyond \d+ MB \(0 MB compressed\): a ZIP bomb\?$/,
    );
  });

  it("a bomb that lies about its size in the headers is caught by what actually inflates", async () => {
    const rows = BOMB_ROW.repeat(800_000);
    const parts = workbookParts(sheetXml(rows)).map((p) =>
      p.name.endsWith("sheet1.xml") ? { ...p, declaredSize: 1000 } : p,
    );
    expect((await failure(buildZip(parts))).code).toBe("zip_bomb");
  });

  it("a 50 MB shared string fails the file", async () => {
    const big = "y".repeat(50 * 1024 * 1024);
    const sst = `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>email</t></si><si><t>${big}</t></si></sst>`;
    const sheet = sheetXml(
      '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row>',
    );
    const err = await failure(buildZip(workbookParts(sheet, sst)));
    expect(err.code).toBe("row_too_large");
    expect(err.message).toBe("shared string 2 holds more than 4 MB");
  });

  it("a row of 1,000,000 cells fails the file", async () => {
    const cells = Array.from({ length: 1_000_000 }, () => "<c/>").join("");
    const err = await failure(buildZip(workbookParts(sheetXml(`<row r="1">${cells}</row>`))));
    expect(err.code).toBe("too_many_columns");
    expect(err.message).toBe("row 1 of the sheet has more than 16,384 cells");
  });

  it("a workbook without a shared-strings table (inline strings) is read without spilling to disk", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("People");
    ws.addRow(["E-mail", "Vorname"]);
    ws.addRow(["li@example.com", "Li"]);
    const buf = Buffer.from(await wb.xlsx.writeBuffer({ useSharedStrings: false } as never));
    const { header, rows } = await readAll(buf);
    expect(header).toEqual(["E-mail", "Vorname"]);
    expect(rows).toEqual([{ line: 2, cells: ["li@example.com", "Li"] }]);
  });

  it("a truncated workbook", async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet("x").addRow(["email"]);
    const buf = Buffer.from(await wb.xlsx.writeBuffer());
    const err = await failure(buf.subarray(0, buf.length - 30));
    expect(err.code).toBe("unreadable");
  });
});
