import { randomUUID } from "node:crypto";
import { Exchanges, makeEnvelope, RoutingKeys, type ProjectId } from "@emailsvc/contracts";
import { type Db, OUTBOX_INSERT } from "@emailsvc/db";

export interface NewThread {
  projectId: ProjectId;
  activityId: string | null;
  emailMessageId: string | null;
  campaignId: string | null;
  outboundMessageId: string | null;
  emailType: string | null;
  isTest: boolean;
  subject: string;
  normalizedSubject: string;
}

export interface NewAttachment {
  id: string;
  position: number;
  filename: string;
  contentType: string;
  size: number;
  storageKey: string;
}

export interface NewInboundMessage {
  id: string;
  projectId: ProjectId | null;
  activityId: string | null;
  isTest: boolean;
  dedupeKey: string;
  sesMessageId: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  fromEmail: string;
  fromName: string | null;
  to: unknown;
  cc: unknown;
  recipient: string;
  subject: string;
  textBody: string;
  htmlBody: string;
  replyText: string;
  sentAt: Date | null;
  kind: string;
  matchedBy: string | null;
  returnPathParsed: unknown;
  verdicts: unknown;
  suspicious: boolean;
  rawKey: string | null;
  raw: string | null;
  size: number;
  receivedAt: Date;
  attachments: NewAttachment[];
}

export interface StoreInput {
  notificationId: string;
  message: NewInboundMessage;
  /** The thread to add it to: an existing one (subject rule), or the send's (found or created). */
  thread: { existingId: string } | { create: NewThread } | null;
  /** Lower-cased addresses added to the thread's participants. */
  participants: string[];
  /**
   * Whether the reply may be forwarded at all: it belongs to a project and answers an API send. It then is, when
   * the project has an inbound URL for the mode (looked up by the same statement).
   */
  forwardable: boolean;
  /** The webhook body, once the thread id is known (null: nothing to forward). */
  buildBody(threadId: string | null): string | null;
}

export type StoreResult =
  { kind: "stored"; threadId: string | null; forward: string } | { kind: "duplicate"; of: string | null };

/**
 * The thread of a new conversation, created empty (its count grows with each stored message) or found: one
 * statement of its own, so the message's statement knows the thread id for the webhook body. Run again after a
 * crash it finds the same row.
 */
async function ensureThread(db: Db, n: NewThread, participants: string[]): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO inbound_threads (id, project_id, activity_id, email_message_id, campaign_id, outbound_message_id,
            email_type, is_test, subject, normalized_subject, participants, message_count, last_message_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text[], 0, now())
     ON CONFLICT (project_id, activity_id) DO UPDATE SET project_id = EXCLUDED.project_id
     RETURNING id`,
    [
      randomUUID(),
      n.projectId,
      n.activityId,
      n.emailMessageId,
      n.campaignId,
      n.outboundMessageId,
      n.emailType,
      n.isTest,
      n.subject.slice(0, 998),
      n.normalizedSubject,
      participants,
    ],
  );
  return rows[0]!.id;
}

/**
 * The message, its attachments, its thread's count and participants, the notification marked processed, and the
 * email.inbound outbox row when it is forwarded, in one statement (atomic without a transaction's round trips).
 * Whether it is forwarded is decided there: `unmatched` without a project, `dashboard_send` when not forwardable,
 * else `queued` when the project has an inbound URL for the send's mode and `no_url` when not. A message whose
 * dedupe key (project, Message-ID, recipient) is stored already inserts nothing: the notification is marked a
 * duplicate of the stored one. The notification is marked only while still `received`: when the receiver and the
 * consumer process one notification at once (the receiver overran its hold), the second finds the first's
 * message by its dedupe key and leaves the first's outcome alone.
 */
const STORE_SQL = `
WITH fwd AS (
  SELECT CASE WHEN $2::uuid IS NULL THEN 'unmatched'
              WHEN NOT $34::boolean THEN 'dashboard_send'
              WHEN EXISTS (SELECT 1 FROM projects p WHERE p.id = $2::uuid
                   AND COALESCE(CASE WHEN $5::boolean THEN p.inbound_webhook_url_dev ELSE p.inbound_webhook_url END, '') <> '')
              THEN 'queued' ELSE 'no_url' END AS forward
), msg AS (
  INSERT INTO inbound_messages (id, project_id, thread_id, activity_id, is_test, dedupe_key, ses_message_id,
         message_id, in_reply_to, "references", from_email, from_name, "to", cc, recipient, subject, text_body,
         html_body, reply_text, sent_at, kind, matched_by, return_path_parsed, verdicts, suspicious, forward,
         raw_key, raw, size, webhook_body, received_at)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11, $12, $13::jsonb, $14::jsonb, $15, $16, $17, $18,
         $19, $20, $21, $22, $23::jsonb, $24::jsonb, $25, fwd.forward, $26, $27, $28, $29, $30
    FROM fwd
  ON CONFLICT (dedupe_key) DO NOTHING
  RETURNING id, forward
), att AS (
  INSERT INTO inbound_attachments (id, project_id, inbound_message_id, position, filename, content_type, size, storage_key)
  SELECT x.id, $2::uuid, $1::uuid, x.position, x.filename, x.content_type, x.size, x.storage_key
    FROM unnest($35::uuid[], $36::int[], $37::text[], $38::text[], $39::int[], $40::text[])
      AS x(id, position, filename, content_type, size, storage_key)
   WHERE EXISTS (SELECT 1 FROM msg)
), thr AS (
  UPDATE inbound_threads SET message_count = message_count + 1, last_message_at = greatest(last_message_at, now()),
         participants = ARRAY(SELECT DISTINCT x FROM unnest(participants || $41::text[]) x)
   WHERE id = $3::uuid AND project_id = $2::uuid AND EXISTS (SELECT 1 FROM msg)
), dup AS (
  SELECT id FROM inbound_messages WHERE dedupe_key = $6
), n AS (
  UPDATE inbound_notifications
     SET status = CASE WHEN EXISTS (SELECT 1 FROM msg) THEN 'processed' ELSE 'duplicate' END,
         inbound_message_id = COALESCE((SELECT id FROM msg), (SELECT id FROM dup)), size = $28, processed_at = now()
   WHERE id = $31::uuid AND status = 'received'
), ob AS (
  ${OUTBOX_INSERT}
  SELECT $32::uuid, $33, 'email.inbound', $42::jsonb FROM msg WHERE msg.forward = 'queued'
)
SELECT (SELECT forward FROM msg) AS forward, (SELECT id FROM dup) AS dup_id`;

export async function storeInboundMessage(db: Db, input: StoreInput): Promise<StoreResult> {
  const m = input.message;
  const t = input.thread;
  const threadId = !t
    ? null
    : "existingId" in t
      ? t.existingId
      : await ensureThread(db, t.create, input.participants);
  const body = input.buildBody(threadId);
  const envelope = m.projectId
    ? makeEnvelope(
        RoutingKeys.emailInbound,
        { inboundEmailId: m.id, projectId: m.projectId, isTest: m.isTest },
        { projectId: m.projectId },
      )
    : null;
  const a = m.attachments;
  const { rows } = await db.pool.query<{ forward: string | null; dup_id: string | null }>(STORE_SQL, [
    m.id,
    m.projectId,
    threadId,
    m.activityId,
    m.isTest,
    m.dedupeKey,
    m.sesMessageId,
    m.messageId,
    m.inReplyTo,
    m.references,
    m.fromEmail,
    m.fromName,
    JSON.stringify(m.to),
    JSON.stringify(m.cc),
    m.recipient,
    m.subject,
    m.textBody,
    m.htmlBody,
    m.replyText,
    m.sentAt,
    m.kind,
    m.matchedBy,
    m.returnPathParsed === null ? null : JSON.stringify(m.returnPathParsed),
    JSON.stringify(m.verdicts),
    m.suspicious,
    m.rawKey,
    m.raw,
    m.size,
    body,
    m.receivedAt,
    input.notificationId,
    envelope?.id ?? null,
    Exchanges.emailEvents,
    input.forwardable && m.projectId !== null,
    a.map((x) => x.id),
    a.map((x) => x.position),
    a.map((x) => x.filename),
    a.map((x) => x.contentType),
    a.map((x) => x.size),
    a.map((x) => x.storageKey),
    input.participants,
    envelope ? JSON.stringify(envelope) : null,
  ]);
  const r = rows[0]!;
  if (r.forward === null) return { kind: "duplicate", of: r.dup_id };
  return { kind: "stored", threadId, forward: r.forward };
}
