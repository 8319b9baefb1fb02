import { Exchanges, makeEnvelope, type RoutingKey } from "@emailsvc/contracts";
import { insertOutboxRows, withTransaction, type Db } from "@emailsvc/db";
import { ALLOWED_FROM, EVENT_MAP, eventDetails, eventTimestamp, type SesEvent } from "../domain/ses-event";

export type ApplyResult = "applied" | "duplicate" | "ignored" | "unknown-activity";

/**
 * One provider notification, in one transaction: the email event record (de-duplicated by the SNS MessageId),
 * the forward-only activity update of spec 4.9, the suppression of hard bounces and complaints, and the outbox
 * row of the client webhook event.
 */
export async function applyNotification(db: Db, snsMessageId: string, event: SesEvent): Promise<ApplyResult> {
  const type = event.eventType ?? event.notificationType ?? "";
  const map = EVENT_MAP[type];
  if (!map) return "ignored";
  const at = eventTimestamp(event);
  const tagged = event.mail.tags?.activity_id?.[0];
  return withTransaction(db.pool, async (client) => {
    // By provider message id, else by the activity_id tag the send-worker set (its answer may not be stored yet).
    const found = await client.query<{
      id: string;
      project_id: string | null;
      is_test: boolean;
      recipient: string;
      status: string;
    }>(
      `SELECT id, project_id, is_test, recipient, status FROM activities
        WHERE provider_message_id = $1 OR ($2::uuid IS NOT NULL AND id = $2::uuid)
        ORDER BY (provider_message_id = $1) DESC NULLS LAST LIMIT 1 FOR UPDATE`,
      [event.mail.messageId, tagged && /^[0-9a-f-]{36}$/i.test(tagged) ? tagged : null],
    );
    const a = found.rows[0];
    if (!a) return "unknown-activity";
    const inserted = await client.query(
      `INSERT INTO email_events (id, project_id, activity_id, type, provider_event_id, is_test, occurred_at, payload)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7) ON CONFLICT (provider_event_id) DO NOTHING RETURNING id`,
      [a.project_id, a.id, map.stored, snsMessageId, a.is_test, at, JSON.stringify(event)],
    );
    if (inserted.rowCount === 0) return "duplicate";
    const eventRecordId = (inserted.rows[0] as { id: string }).id;

    if (type === "Send" && a.status === "sending") {
      // Reconciliation: the worker died after SES accepted the email; the Send event proves it went out.
      await client.query(
        `UPDATE activities SET status = 'sent', provider_message_id = COALESCE(provider_message_id, $2), sent_at = COALESCE(sent_at, $3), updated_at = now()
          WHERE id = $1 AND status = 'sending'`,
        [a.id, event.mail.messageId, at],
      );
    }
    if (map.status && map.at) {
      await client.query(
        `UPDATE activities SET status = CASE WHEN status = ANY($3::text[]) THEN $2 ELSE status END,
                ${map.at} = COALESCE(${map.at}, $4),
                bounce_type = CASE WHEN $5::text IS NOT NULL THEN $5 ELSE bounce_type END,
                updated_at = now()
          WHERE id = $1`,
        [a.id, map.status, ALLOWED_FROM[map.status], at, event.bounce?.bounceType ?? null],
      );
    }
    // Hard bounces and complaints suppress the recipient; a soft (Transient) bounce does not.
    const suppress =
      type === "Complaint"
        ? "complaint"
        : type === "Bounce" && event.bounce?.bounceType === "Permanent"
          ? "bounce"
          : null;
    if (suppress && a.project_id) {
      await client.query(
        `INSERT INTO suppressions (id, project_id, email, reason, source_activity_id) VALUES (gen_random_uuid(), $1, $2, $3, $4)
         ON CONFLICT (project_id, email) DO NOTHING`,
        [a.project_id, a.recipient.toLowerCase(), suppress, a.id],
      );
    }
    if (map.clientEvent && a.project_id) {
      const details = eventDetails(event);
      const envelope = makeEnvelope(
        map.clientEvent as RoutingKey as "email.delivered",
        {
          activityId: a.id,
          projectId: a.project_id,
          isTest: a.is_test,
          occurredAt: at.toISOString(),
          eventRecordId,
          ...(details ? { details } : {}),
        },
        { projectId: a.project_id, causationId: snsMessageId },
      );
      await insertOutboxRows(client, [
        { exchange: Exchanges.emailEvents, routingKey: map.clientEvent, payload: envelope },
      ]);
    }
    return "applied";
  });
}
