import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "./create-db";

// Reply threads (spec 4.9, 6.2): written by inbound-mail, read by public-api's conversation API. Every read is
// scoped to the project first.

export interface ThreadRow {
  id: string;
  activity_id: string | null;
  email_message_id: string | null;
  campaign_id: string | null;
  outbound_message_id: string | null;
  email_type: string | null;
  is_test: boolean;
  subject: string;
  participants: string[];
  message_count: number;
  last_message_at: Date;
  created_at: Date;
}

export const THREAD_COLUMNS = `id, activity_id, email_message_id, campaign_id, outbound_message_id, email_type, is_test,
  subject, participants, message_count, last_message_at, created_at`;

/** The send a thread answers, as the conversation shows it. */
export interface ThreadSendRow {
  id: string;
  message_id: string | null;
  from_email: string;
  recipient: string;
  subject: string;
  status: string;
  sent_at: Date | null;
  created_at: Date;
}

/** A reply of a thread with its attachments (in their order). */
export interface ThreadReplyRow {
  id: string;
  message_id: string | null;
  in_reply_to: string | null;
  from_email: string;
  from_name: string | null;
  to: { email: string; name: string | null }[];
  cc: { email: string; name: string | null }[];
  subject: string;
  text_body: string;
  html_body: string;
  reply_text: string;
  kind: "reply" | "auto_reply" | "bounce_report" | "forward";
  matched_by: string | null;
  suspicious: boolean;
  verdicts: Record<string, string | null>;
  sent_at: Date | null;
  received_at: Date;
  attachments: { id: string; filename: string; content_type: string; size: number; storage_key: string }[];
}

export async function findThread(db: Db, projectId: ProjectId, id: string): Promise<ThreadRow | null> {
  const r = await db.pool.query<ThreadRow>(
    `SELECT ${THREAD_COLUMNS} FROM inbound_threads WHERE id = $1 AND project_id = $2`,
    [id, projectId],
  );
  return r.rows[0] ?? null;
}

export async function findThreadSend(
  db: Db,
  projectId: ProjectId,
  activityId: string,
): Promise<ThreadSendRow | null> {
  const r = await db.pool.query<ThreadSendRow>(
    `SELECT a.id, a.message_id, m.from_email, a.recipient, m.subject, a.status, a.sent_at, a.created_at
       FROM activities a JOIN email_messages m ON m.id = a.email_message_id
      WHERE a.id = $1 AND a.project_id = $2`,
    [activityId, projectId],
  );
  return r.rows[0] ?? null;
}

/** A thread's replies, oldest first. */
export async function listThreadReplies(
  db: Db,
  projectId: ProjectId,
  threadId: string,
): Promise<ThreadReplyRow[]> {
  const r = await db.pool.query<ThreadReplyRow>(
    `SELECT m.id, m.message_id, m.in_reply_to, m.from_email, m.from_name, m."to", m.cc, m.subject, m.text_body,
            m.html_body, m.reply_text, m.kind, m.matched_by, m.suspicious, m.verdicts, m.sent_at, m.received_at,
            COALESCE((SELECT json_agg(json_build_object('id', a.id, 'filename', a.filename, 'content_type',
                a.content_type, 'size', a.size, 'storage_key', a.storage_key) ORDER BY a.position)
                FROM inbound_attachments a WHERE a.inbound_message_id = m.id), '[]') AS attachments
       FROM inbound_messages m WHERE m.thread_id = $1 AND m.project_id = $2 ORDER BY m.received_at, m.id`,
    [threadId, projectId],
  );
  return r.rows;
}

/** Where a reply's MIME is: inline (SES's SNS action) or the inbound bucket's key; null for another project's. */
export async function findInboundRaw(
  db: Db,
  projectId: ProjectId,
  id: string,
): Promise<{ raw_key: string | null; raw: string | null; is_test: boolean } | null> {
  const r = await db.pool.query<{ raw_key: string | null; raw: string | null; is_test: boolean }>(
    "SELECT raw_key, raw, is_test FROM inbound_messages WHERE id = $1 AND project_id = $2",
    [id, projectId],
  );
  return r.rows[0] ?? null;
}

export interface RecipientReplyRow {
  id: string;
  thread_id: string;
  activity_id: string | null;
  from_email: string;
  subject: string;
  reply_text: string;
  kind: string;
  received_at: Date;
}

/**
 * The replies to the emails sent to one address (a lead's timeline), newest first, before the (received_at, id)
 * position: the address's activities, their threads, the threads' messages.
 */
export async function listRepliesToRecipient(
  db: Db,
  projectId: ProjectId,
  email: string,
  before: { at: Date; id: string } | undefined,
  limit: number,
): Promise<RecipientReplyRow[]> {
  const r = await db.pool.query<RecipientReplyRow>(
    `SELECT m.id, m.thread_id, t.activity_id, m.from_email, m.subject, left(m.reply_text, 500) AS reply_text,
            m.kind, m.received_at
       FROM activities a
       JOIN inbound_threads t ON t.project_id = a.project_id AND t.activity_id = a.id
       JOIN inbound_messages m ON m.thread_id = t.id AND m.project_id = t.project_id
      WHERE lower(a.recipient) = lower($2::text) AND a.project_id = $1
        AND ($3::timestamptz IS NULL OR (m.received_at, m.id) < ($3, $4::uuid))
      ORDER BY m.received_at DESC, m.id DESC LIMIT $5`,
    [projectId, email, before?.at ?? null, before?.id ?? null, limit],
  );
  return r.rows;
}
