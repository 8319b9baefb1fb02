import { AppError, ErrorCode, MSG_IN_FLIGHT, MSG_KEY_REUSED, type ProjectId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import type { AcceptResult } from "./accept-send";

/**
 * What a request whose Idempotency-Key another request already used gets: that request's stored answer (replayed),
 * 422 when its body differs, 409 while it is still running.
 */
export async function existingIdempotentResponse(
  db: Db,
  projectId: ProjectId,
  key: string,
  fingerprint: string,
): Promise<AcceptResult> {
  const { rows } = await db.pool.query<{
    fingerprint: string;
    response_status: number | null;
    response_body: unknown;
  }>(
    "SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE project_id = $1 AND key = $2",
    [projectId, key],
  );
  const row = rows[0];
  if (row && row.fingerprint !== fingerprint)
    throw new AppError(ErrorCode.IDEMPOTENCY_KEY_REUSED, MSG_KEY_REUSED);
  if (row?.response_status != null)
    return { kind: "replay", response: { status: row.response_status, body: row.response_body } };
  throw new AppError(ErrorCode.CONFLICT, MSG_IN_FLIGHT);
}

/** The reason of a gate that aborted an accept statement (`svc_abort`), or null for any other error. */
export function abortReason(err: unknown): string | null {
  const e = err as { code?: string; message?: string };
  return e?.code === "P0001" ? (e.message ?? null) : null;
}

/** A reply token drawn twice (the table's primary key): the statement is tried again with fresh tokens. */
export function isReplyTokenCollision(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === "23505" && e.constraint === "reply_tokens_pkey";
}
