import { isUuid } from "@emailsvc/contracts";
import { AppError, ErrorCode } from "@emailsvc/http";

// The admin lists' keyset cursor: the last row's created_at and id (ties broken by id), opaque to the client. A page
// costs the same however far in, and a row written meanwhile is neither skipped nor listed twice.

export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString("base64url");
}

/** The position a `next_cursor` names; anything else is a 400 naming the parameter. */
export function decodeCursor(cursor: string): KeysetPosition {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const createdAt = new Date(at ?? "");
  if (!id || !isUuid(id) || Number.isNaN(createdAt.getTime()))
    throw new AppError(ErrorCode.VALIDATION, "cursor must be the next_cursor of the previous page");
  return { createdAt, id };
}
