import { Exchanges } from "@emailsvc/contracts";
import type { Db } from "./create-db";
import { clientWebhookExistsSql, OUTBOX_INSERT } from "./outbox";

// Provider outcomes on the activities aggregate (spec 4.9): notifications recorded as email events, the
// forward-only status moves (ACTIVITY_TRANSITIONS, which the caller spells into each row's `allowed`), the
// suppressions they cause and the client webhook events they publish, a batch in one statement.

/**
 * A batch of notifications as ONE statement (one round trip; a statement is atomic like a transaction):
 *   r    the notifications, in arrival order;
 *   m    each one's activity: by provider message id, else by the activity_id tag the send-worker set, and only
 *        while that activity has no provider message id stored yet (the worker's answer not recorded): activity
 *        ids are public (every pixel URL has one), so a tag must never be enough to reach an activity that SES
 *        already gave another id, whichever signed topic the notification came from;
 *   f    the first notification per activity; later ones for the same activity are deferred to the next batch,
 *        so every row below is touched once and each activity's steps keep their order;
 *   a    those activities, locked in id order (two batches never wait on each other in a cycle);
 *   ev   the email event records, de-duplicated by the SNS MessageId (nothing below runs for a duplicate);
 *   upd  reconciliation (`Send` while still `sending`, or `failed` with no provider id: SETTLES_SEND) and the
 *        forward-only status of spec 4.9 with its timestamp and bounce type, when the notification is about
 *        the activity's own recipient (`applies`): one SES message carries the first recipient's activity
 *        together with the send's cc and bcc, and a bounce of a cc address is not a bounce of the recipient;
 *   sup  the suppression of hard bounces and complaints: the addresses the notification names (bounced or
 *        complained recipients), or the activity's recipient when it names none;
 *   ob   the outbox rows of the client webhook events of notifications that apply to the activity, for projects
 *        with a webhook URL for the send's mode:
 *        envelopes built in TypeScript, the statement fills in the activity's id, project and mode, which only
 *        it knows.
 * It answers one row per notification: whether its activity was found, ran in this batch, and was inserted,
 * and on every row the number of outbox rows the batch wrote.
 */
/**
 * A `Send` notification settles what the worker could not record: an activity still `sending` (the worker died
 * after SES accepted it), or `failed` without a provider id (a synchronous send whose provider call timed out:
 * the caller was told 504 and the outcome was unknown; SES saying it sent the email ends that).
 */
const FAILED_UNSETTLED = "(t.status = 'failed' AND t.provider_message_id IS NULL)";
const SETTLES_SEND = `(t.status = 'sending' OR ${FAILED_UNSETTLED})`;

const APPLY_SQL = `
WITH r AS (
  SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::jsonb[],
                       $8::boolean[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::uuid[],
                       $15::text[], $16::jsonb[], $18::text[])
    WITH ORDINALITY AS r(message_id, tagged, ev_id, stored, sns_id, at, payload, is_send, status, allowed, at_col,
                         bounce_type, suppress, ob_id, rk, env, named, ord)
), m AS (
  SELECT r.ord, x.id AS activity_id FROM r CROSS JOIN LATERAL (
    SELECT id FROM activities
     WHERE provider_message_id = r.message_id
        OR (r.tagged IS NOT NULL AND id = r.tagged AND provider_message_id IS NULL)
     ORDER BY (provider_message_id = r.message_id) DESC NULLS LAST LIMIT 1) x
), f AS (
  SELECT DISTINCT ON (activity_id) activity_id, ord FROM m ORDER BY activity_id, ord
), a AS (
  SELECT t.id, t.project_id, t.is_test, t.recipient, f.ord FROM activities t JOIN f ON f.activity_id = t.id
   ORDER BY t.id FOR UPDATE OF t
), ev AS (
  INSERT INTO email_events (id, project_id, activity_id, type, provider_event_id, is_test, occurred_at, payload)
  SELECT r.ev_id, a.project_id, a.id, r.stored, r.sns_id, a.is_test, r.at, r.payload FROM a JOIN r ON r.ord = a.ord
  ON CONFLICT (provider_event_id) DO NOTHING RETURNING activity_id
), j AS (
  SELECT a.id, a.project_id, a.is_test, a.recipient, r.*,
         (r.named IS NULL OR lower(a.recipient) = ANY(string_to_array(r.named, E'\n'))) AS applies
    FROM ev JOIN a ON a.id = ev.activity_id JOIN r ON r.ord = a.ord
), upd AS (
  UPDATE activities t SET
    status = CASE WHEN j.is_send AND ${SETTLES_SEND} THEN 'sent'
                  WHEN j.status IS NOT NULL AND t.status = ANY(string_to_array(j.allowed, ',')) THEN j.status
                  ELSE t.status END,
    provider_message_id = CASE WHEN j.is_send AND ${SETTLES_SEND} THEN COALESCE(t.provider_message_id, j.message_id) ELSE t.provider_message_id END,
    sent_at = CASE WHEN j.is_send AND ${SETTLES_SEND} THEN COALESCE(t.sent_at, j.at) ELSE t.sent_at END,
    failed_at = CASE WHEN j.is_send AND ${FAILED_UNSETTLED} THEN NULL ELSE t.failed_at END,
    failure_reason = CASE WHEN j.is_send AND ${FAILED_UNSETTLED} THEN NULL ELSE t.failure_reason END,
    delivered_at = CASE WHEN j.at_col = 'delivered_at' THEN COALESCE(t.delivered_at, j.at) ELSE t.delivered_at END,
    bounced_at = CASE WHEN j.at_col = 'bounced_at' THEN COALESCE(t.bounced_at, j.at) ELSE t.bounced_at END,
    complained_at = CASE WHEN j.at_col = 'complained_at' THEN COALESCE(t.complained_at, j.at) ELSE t.complained_at END,
    bounce_type = COALESCE(j.bounce_type, t.bounce_type),
    updated_at = now()
  FROM j WHERE t.id = j.id AND (j.is_send OR (j.status IS NOT NULL AND j.applies))
), sup AS (
  INSERT INTO suppressions (id, project_id, email, reason, source_activity_id)
  SELECT DISTINCT ON (project_id, email) gen_random_uuid(), project_id, email, suppress, id
    FROM (SELECT j.project_id, j.suppress, j.id, j.ord,
                 unnest(COALESCE(string_to_array(j.named, E'\n'), ARRAY[lower(j.recipient)])) AS email
            FROM j WHERE j.suppress IS NOT NULL AND j.project_id IS NOT NULL) s
   ORDER BY project_id, email, ord
  ON CONFLICT (project_id, email) DO NOTHING
), ob AS (
  ${OUTBOX_INSERT}
  SELECT ob_id, $17, rk,
         jsonb_set(env || jsonb_build_object('projectId', project_id), '{payload}',
                   (env -> 'payload') || jsonb_build_object('activityId', id, 'projectId', project_id, 'isTest', is_test))
    FROM j WHERE rk IS NOT NULL AND j.applies AND project_id IS NOT NULL
     AND ${clientWebhookExistsSql("j.project_id", "j.is_test")}
  RETURNING 1
)
SELECT r.ord::int AS ord, (m.ord IS NOT NULL) AS found, (f.ord IS NOT NULL) AS first,
       EXISTS (SELECT 1 FROM j WHERE j.ord = r.ord) AS inserted, (SELECT count(*) FROM ob)::int AS published
  FROM r LEFT JOIN m ON m.ord = r.ord LEFT JOIN f ON f.ord = r.ord
 ORDER BY r.ord`;

/** One notification as the statement takes it (notification-ingest maps an SES event to it). */
export interface NotificationRow {
  messageId: string;
  tagged: string | null;
  eventRecordId: string;
  stored: string;
  snsMessageId: string;
  at: Date;
  payload: string;
  isSend: boolean;
  status: string | null;
  allowed: string | null;
  atColumn: string | null;
  bounceType: string | null;
  suppress: string | null;
  outboxId: string | null;
  routingKey: string | null;
  envelope: string | null;
  /** The recipients the notification is about, lower-cased, one per line; null when it names none. */
  named: string | null;
}

/** What the statement says of one notification. */
export interface NotificationOutcome {
  ord: number;
  /** its activity was found */
  found: boolean;
  /** it was its activity's first in the batch (else deferred) */
  first: boolean;
  /** its event record was new (else a duplicate) */
  inserted: boolean;
  /** the outbox rows the whole batch wrote (the same on every row) */
  published: number;
}

/** Applies a batch of notifications in one statement (see APPLY_SQL): one outcome per row, in order. */
export async function applyNotificationRows(
  db: Db,
  rows: readonly NotificationRow[],
): Promise<NotificationOutcome[]> {
  const col = <K extends keyof NotificationRow>(k: K) => rows.map((r) => r[k]);
  const res = await db.pool.query<NotificationOutcome>(APPLY_SQL, [
    col("messageId"),
    col("tagged"),
    col("eventRecordId"),
    col("stored"),
    col("snsMessageId"),
    col("at"),
    col("payload"),
    col("isSend"),
    col("status"),
    col("allowed"),
    col("atColumn"),
    col("bounceType"),
    col("suppress"),
    col("outboxId"),
    col("routingKey"),
    col("envelope"),
    Exchanges.emailEvents,
    col("named"),
  ]);
  return res.rows;
}
