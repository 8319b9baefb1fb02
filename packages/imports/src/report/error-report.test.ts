import { errorReportWriter, escapeFormula } from "./error-report";

// Issue 49: formulas behind leading spaces and tabs reached the report as they were.
describe("escapeFormula (OWASP CSV injection)", () => {
  it.each([
    "=1+1",
    "+1",
    "-1",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    ' =HYPERLINK("https://evil.example","x")',
    "   +cmd|' /C calc'!A0",
    "\t\t-2+3",
    "\n@SUM(A1)",
    "\u00a0=1",
    "\u3000=1",
    "\tplain",
    "\rplain",
  ])("%j gets a leading apostrophe", (cell) => {
    expect(escapeFormula(cell)).toBe(`'${cell}`);
  });

  it.each(["a@example.com", "Ann", "1-2", "", " ", "  plain text", "x=1", "café = bar"])(
    "%j stays as it is",
    (cell) => {
      expect(escapeFormula(cell)).toBe(cell);
    },
  );

  it("the report's CSV holds the escaped cells", async () => {
    const writer = errorReportWriter(["email", " =name"]);
    const out: string[] = [];
    writer.on("data", (c: Buffer) => out.push(c.toString("utf8")));
    writer.write(["2", "invalid email", "  =1+1", "\t@SUM(A1)"]);
    writer.end();
    await new Promise((r) => writer.on("end", r));
    expect(out.join("")).toBe("\ufeffline,reason,email,' =name\r\n2,invalid email,'  =1+1,'\t@SUM(A1)\r\n");
  });
});
