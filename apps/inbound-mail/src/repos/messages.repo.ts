import { randomUUID } from "node:crypto";
import { Exchanges, makeEnvelope, RoutingKeys } from "@emailsvc/contracts";
import { type Db, type PoolClient, withTransaction } from "@emailsvc/db";

export interface NewThread {
  projectId: string;
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
  projectId: string | null;
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
   * Builds the webhook body once the thread id is known (null: nothing to forward), and says whether it is
   * forwarded: `forward` is stored on the row; an email.inbound outbox row is written only for "queued".
   */
  finish(threadId: string | null): { body: string | null; forward: string };
}

export type StoreResult =
  { kind: "stored"; threadId: string | null; forward: string } | { kind: "duplicate"; of: string };

const NOTIFICATION_DONE = `UPDATE inbound_notifications SET status = $2, inbound_message_id = $3, size = $4,
  processed_at = now() WHERE id = $1`;

async function upsertThread(c: PoolClient, input: StoreInput): Promise<string | null> {
  const t = input.thread;
  if (!t) return null;
  if ("existingId" in t) {
    const { rows } = await c.query<{ id: string }>(
      `UPDATE inbound_threads SET message_count = message_count + 1, last_message_at = greatest(last_message_at, now()),
              participants = ARRAY(SELECT DISTINCT x FROM unnest(participants || $3::text[]) x)
        WHERE id = $1 AND project_id = $2 RETURNING id`,
      [t.existingId, input.message.projectId, input.participants],
    );
    return rows[0]?.id ?? null;
  }
  const n = t.create;
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO inbound_threads (id, project_id, activity_id, email_message_id, campaign_id, outbound_message_id,
            email_type, is_test, subject, normalized_subject, participants, message_count, last_message_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text[], 1, now())
     ON CONFLICT (project_id, activity_id) DO UPDATE SET message_count = inbound_threads.message_count + 1,
            last_message_at = greatest(inbound_threads.last_message_at, now()),
            participants = ARRAY(SELECT DISTINCT x FROM unnest(inbound_threads.participants || EXCLUDED.participants) x)
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
      input.participants,
    ],
  );
  return rows[0]!.id;
}

/**
 * One transaction: the thread (created or updated), the message, its attachments, the notification marked
 * processed, and the email.inbound outbox row when it is forwarded. A message whose dedupe key (project,
 * Message-ID, recipient) is stored already is not stored again: the notification is marked a duplicate of it.
 */
export async function storeInboundMessage(db: Db, input: StoreInput): Promise<StoreResult> {
  const m = input.message;
  return withTransaction(db.pool, async (c) => {
    const dup = await c.query<{ id: string }>("SELECT id FROM inbound_messages WHERE dedupe_key = $1", [
      m.dedupeKey,
    ]);
    if (dup.rows[0] && dup.rows[0].id !== m.id) {
      await c.query(NOTIFICATION_DONE, [input.notificationId, "duplicate", dup.rows[0].id, m.size]);
      return { kind: "duplicate", of: dup.rows[0].id };
    }
    const threadId = await upsertThread(c, input);
    const { body, forward } = input.finish(threadId);
    const inserted = await c.query(
      `INSERT INTO inbound_messages (id, project_id, thread_id, activity_id, is_test, dedupe_key, ses_message_id,
              message_id, in_reply_to, "references", from_email, from_name, "to", cc, recipient, subject, text_body,
              html_body, reply_text, sent_at, kind, matched_by, return_path_parsed, verdicts, suspicious, forward,
              raw_key, raw, size, webhook_body, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11, $12, $13::jsonb, $14::jsonb, $15, $16, $17,
               $18, $19, $20, $21, $22, $23::jsonb, $24::jsonb, $25, $26, $27, $28, $29, $30, $31)
       ON CONFLICT (dedupe_key) DO NOTHING`,
      [
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
        forward,
        m.rawKey,
        m.raw,
        m.size,
        body,
        m.receivedAt,
      ],
    );
    if (!inserted.rowCount) throw new Error("inbound message raced with its duplicate; retrying");
    if (m.attachments.length) {
      const a = m.attachments;
      await c.query(
        `INSERT INTO inbound_attachments (id, project_id, inbound_message_id, position, filename, content_type, size, storage_key)
         SELECT id, $1::uuid, $2::uuid, position, filename, content_type, size, storage_key
           FROM unnest($3::uuid[], $4::int[], $5::text[], $6::text[], $7::int[], $8::text[])
             AS x(id, position, filename, content_type, size, storage_key)`,
        [
          m.projectId,
          m.id,
          a.map((x) => x.id),
          a.map((x) => x.position),
          a.map((x) => x.filename),
          a.map((x) => x.contentType),
          a.map((x) => x.size),
          a.map((x) => x.storageKey),
        ],
      );
    }
    await c.query(NOTIFICATION_DONE, [input.notificationId, "processed", m.id, m.size]);
    if (forward === "queued" && m.projectId) {
      const envelope = makeEnvelope(
        RoutingKeys.emailInbound,
        { inboundEmailId: m.id, projectId: m.projectId, isTest: m.isTest },
        { projectId: m.projectId },
      );
      await c.query(
        "INSERT INTO outbox_messages (id, exchange, routing_key, payload) VALUES ($1, $2, $3, $4::jsonb)",
        [envelope.id, Exchanges.emailEvents, RoutingKeys.emailInbound, JSON.stringify(envelope)],
      );
    }
    return { kind: "stored", threadId, forward };
  });
}

/** The project's inbound URL for the mode is set (spec 5: an empty `_dev` URL means not delivered anywhere). */
export async function inboundUrlSet(db: Db, projectId: string, isTest: boolean): Promise<boolean> {
  const { rows } = await db.pool.query<{ ok: boolean }>(
    `SELECT COALESCE(CASE WHEN $2 THEN inbound_webhook_url_dev ELSE inbound_webhook_url END, '') <> '' AS ok
       FROM projects WHERE id = $1`,
    [projectId, isTest],
  );
  return rows[0]?.ok === true;
}
