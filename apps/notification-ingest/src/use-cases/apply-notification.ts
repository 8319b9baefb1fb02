import { randomUUID } from "node:crypto";
import { Exchanges, makeEnvelope, type RoutingKey } from "@emailsvc/contracts";
import { type Db } from "@emailsvc/db";
import { ALLOWED_FROM, EVENT_MAP, eventDetails, eventTimestamp, type SesEvent } from "../domain/ses-event";

export type ApplyResult = "applied" | "duplicate" | "ignored" | "unknown-activity";

/** Activity columns a status may set its timestamp on (the only names interpolated into the SQL below). */
const AT_COLUMNS = new Set(["delivered_at", "bounced_at", "complained_at"]);

/**
 * The whole notification as ONE statement (one round trip; a statement is atomic like a transaction):
 *   a    the activity, by provider message id, else by the activity_id tag the send-worker set (its answer may
 *        not be stored yet), locked;
 *   ev   the email event record, de-duplicated by the SNS MessageId (nothing below runs for a duplicate);
 *   upd  reconciliation (`Send` while still `sending`: the worker died after SES accepted it) and the
 *        forward-only status of spec 4.9 with its timestamp and bounce type;
 *   sup  the suppression of hard bounces and complaints;
 *   ob   the outbox row of the client webhook event: the envelope is built in TypeScript and the statement fills
 *        in the activity's id, project and mode, which only it knows.
 */
function applySql(at: string | null): string {
  if (at && !AT_COLUMNS.has(at)) throw new Error(`unexpected timestamp column ${at}`);
  const atSet = at ? `${at} = COALESCE(t.${at}, $6),` : "";
  return `
WITH a AS (
  SELECT id, project_id, is_test, recipient, status FROM activities
   WHERE provider_message_id = $1 OR ($2::uuid IS NOT NULL AND id = $2::uuid)
   ORDER BY (provider_message_id = $1) DESC NULLS LAST LIMIT 1 FOR UPDATE
), ev AS (
  INSERT INTO email_events (id, project_id, activity_id, type, provider_event_id, is_test, occurred_at, payload)
  SELECT $3::uuid, a.project_id, a.id, $4, $5, a.is_test, $6, $7::jsonb FROM a
  ON CONFLICT (provider_event_id) DO NOTHING RETURNING activity_id
), upd AS (
  UPDATE activities t SET
    status = CASE WHEN $8::boolean AND t.status = 'sending' THEN 'sent'
                  WHEN $9::text IS NOT NULL AND t.status = ANY($10::text[]) THEN $9::text
                  ELSE t.status END,
    provider_message_id = CASE WHEN $8::boolean AND t.status = 'sending' THEN COALESCE(t.provider_message_id, $1) ELSE t.provider_message_id END,
    sent_at = CASE WHEN $8::boolean AND t.status = 'sending' THEN COALESCE(t.sent_at, $6) ELSE t.sent_at END,
    ${atSet}
    bounce_type = COALESCE($11::text, t.bounce_type),
    updated_at = now()
  FROM ev WHERE t.id = ev.activity_id AND ($8::boolean OR $9::text IS NOT NULL)
), sup AS (
  INSERT INTO suppressions (id, project_id, email, reason, source_activity_id)
  SELECT gen_random_uuid(), a.project_id, lower(a.recipient), $12, a.id FROM a JOIN ev ON ev.activity_id = a.id
   WHERE $12::text IS NOT NULL AND a.project_id IS NOT NULL
  ON CONFLICT (project_id, email) DO NOTHING
), ob AS (
  INSERT INTO outbox_messages (id, exchange, routing_key, payload)
  SELECT $13::uuid, $14, $15,
         jsonb_set($16::jsonb || jsonb_build_object('projectId', a.project_id), '{payload}',
                   ($16::jsonb -> 'payload') || jsonb_build_object('activityId', a.id, 'projectId', a.project_id, 'isTest', a.is_test))
    FROM a JOIN ev ON ev.activity_id = a.id
   WHERE $15::text IS NOT NULL AND a.project_id IS NOT NULL
)
SELECT (SELECT count(*) FROM a)::int AS found, (SELECT count(*) FROM ev)::int AS inserted`;
}

/**
 * One provider notification: the email event record (de-duplicated by the SNS MessageId), the forward-only
 * activity update of spec 4.9, the suppression of hard bounces and complaints, and the outbox row of the client
 * webhook event, all in one statement (see applySql).
 */
export async function applyNotification(db: Db, snsMessageId: string, event: SesEvent): Promise<ApplyResult> {
  const type = event.eventType ?? event.notificationType ?? "";
  const map = EVENT_MAP[type];
  if (!map) return "ignored";
  const at = eventTimestamp(event);
  const tagged = event.mail.tags?.activity_id?.[0];
  const eventRecordId = randomUUID();
  // Hard bounces and complaints suppress the recipient; a soft (Transient) bounce does not.
  const suppress =
    type === "Complaint"
      ? "complaint"
      : type === "Bounce" && event.bounce?.bounceType === "Permanent"
        ? "bounce"
        : null;
  const details = eventDetails(event);
  // Built here so its shape stays makeEnvelope's; the statement sets activityId, projectId and isTest.
  const envelope = map.clientEvent
    ? makeEnvelope(
        map.clientEvent as RoutingKey as "email.delivered",
        {
          activityId: "",
          projectId: "",
          isTest: false,
          occurredAt: at.toISOString(),
          eventRecordId,
          ...(details ? { details } : {}),
        },
        { projectId: null, causationId: snsMessageId },
      )
    : null;
  const res = await db.pool.query<{ found: number; inserted: number }>(applySql(map.status ? map.at : null), [
    event.mail.messageId,
    tagged && /^[0-9a-f-]{36}$/i.test(tagged) ? tagged : null,
    eventRecordId,
    map.stored,
    snsMessageId,
    at,
    JSON.stringify(event),
    type === "Send",
    map.status,
    map.status ? ALLOWED_FROM[map.status] : null,
    map.status ? (event.bounce?.bounceType ?? null) : null,
    suppress,
    envelope ? randomUUID() : null,
    Exchanges.emailEvents,
    map.clientEvent,
    envelope ? JSON.stringify(envelope) : null,
  ]);
  const r = res.rows[0];
  if (!r?.found) return "unknown-activity";
  if (!r.inserted) return "duplicate";
  return "applied";
}
