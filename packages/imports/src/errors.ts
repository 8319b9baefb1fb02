/**
 * A problem with the file itself (not one row): the job fails with this message as its failure_reason. The
 * message is user-safe and says what to change (`the file is empty`, `no column holds email addresses`, …).
 */
export class ImportFileError extends Error {
  constructor(
    message: string,
    /** A stable word for tests and metrics: not_csv_or_xlsx, empty, no_email_column, too_large, unreadable, … */
    readonly code: ImportFileProblem,
  ) {
    super(message);
    this.name = "ImportFileError";
  }
}

export type ImportFileProblem =
  | "not_csv_or_xlsx"
  | "empty"
  | "no_rows"
  | "no_email_column"
  | "too_large"
  | "too_many_columns"
  | "row_too_large"
  | "unreadable"
  | "zip_bomb"
  | "bad_mapping";

export const isImportFileError = (e: unknown): e is ImportFileError => e instanceof ImportFileError;
