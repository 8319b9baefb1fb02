import { stringify, type Stringifier } from "csv-stringify";
import { IMPORT_LIMITS } from "@emailsvc/contracts";
import type { Cell } from "../rows/row";

/**
 * A cell a spreadsheet would run as a formula gets a leading apostrophe: the report holds what people uploaded,
 * and opening it must not execute any of it (OWASP "CSV injection": a cell starting with `=`, `+`, `-`, `@`, a
 * tab or a carriage return). Spreadsheets skip leading whitespace before a formula (` =1+1`, `\t=HYPERLINK(…)`,
 * a no-break space), so the first character after it counts too.
 */
const FORMULA = /^(?:[\t\r]|[\s\u00a0\u3000\ufeff]*[=+\-@])/;

export function escapeFormula(value: string): string {
  return FORMULA.test(value) ? `'${value}` : value;
}

/** A cell as the report keeps it: text, cut to IMPORT_LIMITS.reportCellChars. */
export function reportCell(c: Cell | undefined): string {
  const s = c === null || c === undefined ? "" : String(c);
  return s.length > IMPORT_LIMITS.reportCellChars ? `${s.slice(0, IMPORT_LIMITS.reportCellChars)}…` : s;
}

/**
 * The error report's CSV writer: `line`, `reason`, then the file's own columns, every cell escaped. It starts
 * with a UTF-8 byte-order mark so Excel reads accents right; fixed rows can be imported again as they are (the
 * two extra columns become attributes unless the mapping ignores them).
 */
export function errorReportWriter(columns: readonly string[]): Stringifier {
  const writer = stringify({ bom: true, record_delimiter: "windows", cast: { string: escapeFormula } });
  writer.write(["line", "reason", ...columns].map(escapeFormula));
  return writer;
}
