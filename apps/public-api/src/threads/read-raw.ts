import { AppError, ErrorCode, isUuid, type ProjectId } from "@emailsvc/contracts";
import { type Db, findInboundRaw } from "@emailsvc/db";

/** Reads an object of the inbound bucket (where SES's S3 action stored the MIME). */
export type InboundMimeReader = (key: string) => Promise<Buffer>;

const NOT_FOUND = "Inbound message not found";

/** GET /v1/inbound/:id/raw: the reply's MIME as it arrived, for the key's project only. */
export async function readInboundRaw(
  db: Db,
  read: InboundMimeReader,
  projectId: ProjectId,
  id: string,
  opts: { testOnly?: boolean } = {},
): Promise<Buffer> {
  if (!isUuid(id)) throw new AppError(ErrorCode.NOT_FOUND, NOT_FOUND);
  const row = await findInboundRaw(db, projectId, id);
  if (!row || (opts.testOnly && !row.is_test)) throw new AppError(ErrorCode.NOT_FOUND, NOT_FOUND);
  if (row.raw !== null) return Buffer.from(row.raw, "latin1");
  if (!row.raw_key) throw new AppError(ErrorCode.NOT_FOUND, NOT_FOUND);
  return read(row.raw_key);
}
