// Reading real-world-shaped files end to end (no database): the committed fixtures in test/fixtures are what
// Excel, LibreOffice and Mailchimp write; XLSX workbooks are written here with exceljs.
import path from "node:path";
import ExcelJS from "exceljs";
import { DEFAULT_IMPORT_OPTIONS } from "@emailsvc/contracts";
import {
  bufferSource,
  createRowReader,
  fileSource,
  type ImportSource,
  openImportFile,
  resolveMapping,
  type Row,
} from "../src";

const fixture = (name: string) => fileSource(path.join(__dirname, "fixtures", name));

async function readAll(source: ImportSource) {
  const file = await openImportFile(source);
  const rows: Row[] = [];
  for await (const batch of file.rows) rows.push(...batch);
  return { info: file.info, header: file.header, rows, estimatedRows: file.estimatedRows };
}

describe("CSV as spreadsheet programs export it", () => {
  it("Excel's UTF-8 CSV: byte-order mark, CRLF, quoted commas and newlines, line numbers of each row", async () => {
    const { info, header, rows } = await readAll(fixture("excel-utf8-bom-crlf.csv"));
    expect(info).toEqual({ format: "csv", encoding: "utf-8", delimiter: "," });
    expect(header[0]).toBe("Email Address"); // no BOM left on the first header
    expect(rows.map((r) => r.line)).toEqual([2, 4, 5, 6, 7, 9]); // row 2 spans lines 2-3; line 8 is blank
    expect(rows[0]!.cells[3]).toBe("Analytical Engines, Ltd.");
    expect(rows[0]!.cells[4]).toBe("02134"); // leading zero kept
    expect(rows[0]!.cells[5]).toBe("Met at the conference,\r\nwants the newsletter");
    expect(rows[2]!.cells[5]).toBe('He said "hello"');
  });

  it("European Excel: semicolons, the sep= line, Windows-1252 accents", async () => {
    const { info, header, rows } = await readAll(fixture("excel-semicolon-windows1252.csv"));
    expect(info).toEqual({ format: "csv", encoding: "windows-1252", delimiter: ";" });
    expect(header).toEqual(["E-Mail", "Vorname", "Nachname", "Stadt"]);
    expect(rows[0]).toEqual({ line: 3, cells: ["jurgen@example.de", "Jürgen", "Müller", "Köln"] });
    expect(rows[1]!.cells.slice(1)).toEqual(["François", "Lefèvre", "Besançon"]);
  });

  it("Excel's Unicode Text: UTF-16LE with a byte-order mark, tab-separated", async () => {
    const { info, rows } = await readAll(fixture("excel-unicode-text.txt"));
    expect(info).toEqual({ format: "csv", encoding: "utf-16le", delimiter: "\t" });
    expect(rows[0]!.cells).toEqual(["zoe@example.com", "Zoë Ångström", "Malmö"]);
    expect(rows[1]!.cells).toEqual(["li@example.cn", "李 小龍", "香港"]);
  });

  it("UTF-16BE without a byte-order mark is recognised by its zero bytes", async () => {
    const text = "email;name\nnoor@example.com;Noor\n";
    const be = Buffer.from(text, "utf16le").swap16();
    const { info, rows } = await readAll(bufferSource(be));
    expect(info).toMatchObject({ encoding: "utf-16be", delimiter: ";" });
    expect(rows[0]!.cells).toEqual(["noor@example.com", "Noor"]);
  });

  it("maps Mailchimp's export by synonyms; other columns become attributes; its quoted tags are read", async () => {
    const { header, rows } = await readAll(fixture("mailchimp-export.csv"));
    const mapping = resolveMapping(header, {});
    const target = (h: string) => mapping.find((c) => c.header === h)?.target;
    expect(target("Email Address")).toBe("email");
    expect(target("First Name")).toBe("first_name");
    expect(target("Last Name")).toBe("last_name");
    expect(target("Phone Number")).toBe("phone");
    expect(target("TAGS")).toBe("tags");
    expect(target("MEMBER_RATING")).toBe("attribute:member_rating");
    const read = createRowReader(mapping, DEFAULT_IMPORT_OPTIONS);
    const first = read(rows[0]!);
    expect(first).toMatchObject({
      ok: true,
      lead: {
        email: "sam@example.com",
        firstName: "Sam",
        phone: "+1 555 0100",
        tags: ["customers", "2023 cohort"],
      },
    });
    expect(JSON.parse((first as { lead: { attributes: string } }).lead.attributes)).toMatchObject({
      member_rating: "2",
      cc: "US",
      leid: "123456",
    });
  });
});

describe("XLSX through exceljs's streaming reader", () => {
  async function workbook(fill: (ws: ExcelJS.Worksheet) => void, extraSheetFirst = false): Promise<Buffer> {
    const wb = new ExcelJS.Workbook();
    if (extraSheetFirst) wb.addWorksheet("Notes").addRow(["not this one"]);
    fill(wb.addWorksheet("Contacts"));
    return Buffer.from(await wb.xlsx.writeBuffer());
  }

  it("reads the first sheet: dates as ISO 8601, zero-padded numbers with their zeros, rich text and formulas", async () => {
    const buf = await workbook((ws) => {
      ws.addRow(["Email", "Name", "Signed up", "Last seen", "Zip", "Score", "Bio"]);
      const r = ws.addRow([
        "ada@example.com",
        { richText: [{ text: "Ada " }, { font: { bold: true }, text: "Lovelace" }] },
        new Date(Date.UTC(2024, 2, 14)),
        new Date(Date.UTC(2024, 2, 14, 9, 30)),
        2134,
        { formula: "1+1", result: 2 },
        "mathematician",
      ]);
      r.getCell(3).numFmt = "yyyy-mm-dd";
      r.getCell(4).numFmt = "yyyy-mm-dd hh:mm";
      r.getCell(5).numFmt = "00000";
      ws.addRow([]);
      ws.addRow(["grace@example.com", "Grace Hopper"]);
    });
    const { info, header, rows, estimatedRows } = await readAll(bufferSource(buf));
    expect(info).toEqual({ format: "xlsx", sheet: "Contacts" });
    expect(header).toEqual(["Email", "Name", "Signed up", "Last seen", "Zip", "Score", "Bio"]);
    expect(rows[0]).toEqual({
      line: 2,
      cells: [
        "ada@example.com",
        "Ada Lovelace",
        "2024-03-14",
        "2024-03-14T09:30:00.000Z",
        "02134",
        2,
        "mathematician",
      ],
    });
    expect(rows[1]).toMatchObject({ line: 4, cells: ["grace@example.com", "Grace Hopper"] });
    expect(estimatedRows).toBe(2);
  });

  it("takes the workbook's first sheet even when another sheet's file comes first", async () => {
    const buf = await workbook((ws) => {
      ws.addRow(["email"]);
      ws.addRow(["x@example.com"]);
    }, true);
    const { info, rows } = await readAll(bufferSource(buf));
    expect(info.sheet).toBe("Notes");
    expect(rows).toEqual([]); // "not this one" is the header of the first sheet
  });
});
