import type { Db } from "./create-db";

// Received mail the platform could not hand to a project, as the operator reads it through the admin API.
// inbound-mail writes these tables (its own repositories); public-api only lists them, across all projects.

/** Replies that matched no send or thread (kept, never forwarded), newest first. */
export async function listUnmatchedInbound(db: Db, limit: number): Promise<Record<string, unknown>[]> {
  const { rows } = await db.pool.query(
    `SELECT id, ses_message_id, message_id, from_email, recipient, subject, kind, suspicious, verdicts, size, received_at
       FROM inbound_messages WHERE project_id IS NULL ORDER BY received_at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

/** Stored notifications in `status` (refused, failed, duplicate: none stored a reply), newest first. */
export async function listInboundNotifications(
  db: Db,
  status: string,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const { rows } = await db.pool.query(
    `SELECT id, sns_message_id, ses_message_id, recipients, source, bucket_name, object_key, size, error,
            inbound_message_id, received_at, processed_at
       FROM inbound_notifications WHERE status = $1 ORDER BY received_at DESC LIMIT $2`,
    [status, limit],
  );
  return rows;
}
