import type { Db } from "@emailsvc/db";
import type { S3ClientType } from "@emailsvc/provider";

/** What the import routes and use cases need (built in deps.ts). */
export interface ImportDeps {
  db: Db;
  /** S3 client of the imports bucket */
  s3: S3ClientType;
  bucket: string;
  /** Upload cap in bytes (IMPORT_MAX_FILE_BYTES, 100 MB by default). */
  maxFileBytes: number;
  /** A trigger committed an outbox row: publish it now. */
  kickOutbox(): void;
}
