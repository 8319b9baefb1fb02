/** A cell as read: text (every CSV cell), or a number, a boolean or text of an XLSX cell; null when empty. */
export type Cell = string | number | boolean | null;

/** A non-blank row of the file and the line it starts on (a spreadsheet's row number for XLSX). */
export interface Row {
  line: number;
  cells: Cell[];
}

/** Rows come in small batches: one await per batch instead of one per row (a million rows). */
export const ROW_BATCH = 500;

export const isBlank = (cells: readonly Cell[]): boolean =>
  cells.every((c) => c === null || (typeof c === "string" && c.trim() === ""));
