// Contact import files (issue 25): recognise, decode and stream CSV and XLSX uploads row by row, map columns to
// lead fields, validate rows, and write the error report. No database and no S3 here: public-api (upload, preview)
// and the scheduler (processing) pass an ImportSource over S3.
export * from "./errors";
export * from "./read/source";
export * from "./read/sniff";
export * from "./read/open-import-file";
export * from "./rows/row";
export * from "./rows/csv-rows";
export * from "./rows/xlsx-rows";
export * from "./mapping/mapping";
export * from "./mapping/read-row";
export * from "./dedupe/seen-emails";
export * from "./report/error-report";
export * from "./read/count-rows";
export * from "./rows/csv-scan";
