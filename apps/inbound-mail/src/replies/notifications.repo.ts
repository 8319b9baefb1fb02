import { randomUUID } from "node:crypto";
import { Exchanges, makeEnvelope, RoutingKeys, type ProjectId } from "@emailsvc/contracts";
import { type Db, OUTBOX_INSERT, OUTBOX_INSERT_HELD } from "@emailsvc/db";
import type { ReceivedNotification } from "./domain/ses-received";

export interface StoredNotification {
  id: string;
  snsMessageId: string;
  sesMessageId: string;
  actionType: "S3" | "SNS";
  bucketName: string | null;
  objectKey: string | null;
  content: string | null;
  recipients: string[];
  source: string | null;
  verdicts: ReceivedNotification["verdicts"];
  status: string;
  inboundMessageId: string | null;
}

/**
 * The notification and the outbox row that hands it to the consumer, in one statement (atomic): acknowledged only
 * once both are stored. A notification whose SNS MessageId is already stored inserts nothing (a redelivery).
 * With a hold, the outbox row is due only after it: the receiver processes the notification itself meanwhile,
 * and the consumer gets it only if the receiver dies or gives up first.
 */
const storeSql = (held: boolean) => `
WITH ins AS (
  INSERT INTO inbound_notifications
    (id, sns_message_id, topic_arn, ses_message_id, action_type, bucket_name, object_key, content, recipients, source, verdicts)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text[], $10, $11::jsonb)
  ON CONFLICT (sns_message_id) DO NOTHING
  RETURNING id
), ob AS (
  ${held ? `${OUTBOX_INSERT_HELD} SELECT $12::uuid, $13, $14, $15::jsonb, now() + $16 * interval '1 millisecond'` : `${OUTBOX_INSERT} SELECT $12::uuid, $13, $14, $15::jsonb`}
    FROM ins
)
SELECT id FROM ins`;
const STORE_SQL = storeSql(false);
const STORE_HELD_SQL = storeSql(true);

export async function storeNotification(
  db: Db,
  snsMessageId: string,
  topicArn: string,
  n: ReceivedNotification,
  holdMs = 0,
): Promise<{ id: string; inserted: boolean; outboxId: string }> {
  const id = randomUUID();
  const envelope = makeEnvelope(RoutingKeys.inboundReceived, { notificationId: id }, { projectId: null });
  const { rows } = await db.pool.query<{ id: string }>(holdMs > 0 ? STORE_HELD_SQL : STORE_SQL, [
    id,
    snsMessageId,
    topicArn,
    n.sesMessageId,
    n.action.type,
    n.action.type === "S3" ? n.action.bucketName : null,
    n.action.type === "S3" ? n.action.objectKey : null,
    n.action.type === "SNS" ? n.action.content : null,
    n.recipients,
    n.source,
    JSON.stringify(n.verdicts),
    envelope.id,
    Exchanges.providerNotifications,
    RoutingKeys.inboundReceived,
    JSON.stringify(envelope),
    ...(holdMs > 0 ? [holdMs] : []),
  ]);
  return rows[0]
    ? { id: rows[0].id, inserted: true, outboxId: envelope.id }
    : { id: "", inserted: false, outboxId: "" };
}

/** What the receiver answers for a notification it already has: its state and, once processed, the reply's. */
export async function notificationOutcome(
  db: Db,
  snsMessageId: string,
): Promise<{
  /** the notification's id */
  id: string;
  status: string;
  sesMessageId: string;
  projectId: ProjectId | null;
  threadId: string | null;
  /** why it failed or was refused */
  error: string | null;
} | null> {
  const { rows } = await db.pool.query<{
    id: string;
    status: string;
    ses_message_id: string;
    project_id: ProjectId | null;
    thread_id: string | null;
    error: string | null;
  }>(
    `SELECT n.id, n.status, n.ses_message_id, m.project_id, m.thread_id, n.error
       FROM inbound_notifications n LEFT JOIN inbound_messages m ON m.id = n.inbound_message_id
      WHERE n.sns_message_id = $1`,
    [snsMessageId],
  );
  const r = rows[0];
  return r
    ? {
        id: r.id,
        status: r.status,
        sesMessageId: r.ses_message_id,
        projectId: r.project_id,
        threadId: r.thread_id,
        error: r.error,
      }
    : null;
}

export async function loadNotification(db: Db, id: string): Promise<StoredNotification | null> {
  const { rows } = await db.pool.query<{
    id: string;
    sns_message_id: string;
    ses_message_id: string;
    action_type: "S3" | "SNS";
    bucket_name: string | null;
    object_key: string | null;
    content: string | null;
    recipients: string[];
    source: string | null;
    verdicts: ReceivedNotification["verdicts"];
    status: string;
    inbound_message_id: string | null;
  }>(
    `SELECT id, sns_message_id, ses_message_id, action_type, bucket_name, object_key, content, recipients, source,
            verdicts, status, inbound_message_id
       FROM inbound_notifications WHERE id = $1`,
    [id],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    snsMessageId: r.sns_message_id,
    sesMessageId: r.ses_message_id,
    actionType: r.action_type,
    bucketName: r.bucket_name,
    objectKey: r.object_key,
    content: r.content,
    recipients: r.recipients,
    source: r.source,
    verdicts: r.verdicts,
    status: r.status,
    inboundMessageId: r.inbound_message_id,
  };
}

/** Ends a notification that stores no reply: refused (bounced: too large) or failed (unreadable). */
export async function finishNotification(
  db: Db,
  id: string,
  status: "refused" | "failed",
  error: string,
  size: number | null,
): Promise<void> {
  await db.pool.query(
    `UPDATE inbound_notifications SET status = $2, error = $3, size = $4, processed_at = now()
      WHERE id = $1 AND status = 'received'`,
    [id, status, error.replaceAll("\0", "").slice(0, 2000), size],
  );
}
