import { Readable } from "node:stream";
import { ImportFileError } from "../errors";
import { scanCsvShape } from "./csv-scan";

const scan = (text: string | Buffer, delimiter = ",", maxRecordBytes = 1024) =>
  scanCsvShape(Readable.from([Buffer.from(text)]), { delimiter, maxRecordBytes });

describe("scanCsvShape", () => {
  it("counts records as csv-parse reads them: quoted newlines and delimiters, CRLF, blank rows skipped", async () => {
    const csv =
      'email,notes\r\na@x.co,"two\r\nlines, and a comma"\r\n\r\n,,\r\nb@x.co,"say ""hi"""\r\nc@x.co,x"y\r\n';
    expect(await scan(csv)).toEqual({ records: 4 });
    expect(await scan("a;b\n1;2", ";")).toEqual({ records: 2 });
  });

  it("fails a record over the limit with its line, and a quote never closed with the line it opened on", async () => {
    await expect(scan(`email\na@x.co\nb@x.co,${"x".repeat(2000)}\n`)).rejects.toThrow(
      new ImportFileError("line 3: a row is larger than 1 KB", "row_too_large"),
    );
    await expect(scan('email,name\na@x.co,"Ada\nb@x.co,B\n')).rejects.toThrow(
      "line 2: a quoted field is never closed",
    );
  });
});
