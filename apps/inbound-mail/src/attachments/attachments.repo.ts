import type { Db } from "@emailsvc/db";

/** What a signed attachment link needs of the stored attachment: where it is, and how to name it. */
export interface StoredAttachment {
  storage_key: string;
  filename: string;
  content_type: string;
}

/** The attachment a signed link names (by id alone: the link is the credential); undefined once it is gone. */
export async function findStoredAttachment(db: Db, id: string): Promise<StoredAttachment | undefined> {
  const { rows } = await db.pool.query<StoredAttachment>(
    "SELECT storage_key, filename, content_type FROM inbound_attachments WHERE id = $1",
    [id],
  );
  return rows[0];
}
