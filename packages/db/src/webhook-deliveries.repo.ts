import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "./create-db";

// The webhook deliveries aggregate (spec 6.3): one delivery per (event, kind) with its stored body, and the
// attempts logged against it.

/** The send an email event is about, as its client webhook body is built from it (webhook-dispatcher). */
export interface EventSource {
  id: string;
  project_id: ProjectId;
  is_test: boolean;
  recipient: string;
  provider_message_id: string | null;
  campaign_id: string | null;
  batch_id: string | null;
  email_type: string;
  email_id: string;
  from_email: string;
  /** As stored: for a batch, with the recipient's `data` still to substitute (the worker did, per send). */
  subject: string;
  from_template: boolean;
  data: Record<string, unknown> | null;
  webhook_url: string | null;
  webhook_url_dev: string | null;
}

/** Which of a project's two pairs of URLs a delivery goes to: email events, or inbound replies. */
export type DeliveryKind = "outbound" | "inbound";

export interface DeliveryRow {
  id: string;
  project_id: ProjectId;
  is_test: boolean;
  url: string | null;
  body: string;
  status: string;
  attempts: number;
}

/** A delivery as the attempt needs it: the stored row, the signing key of its mode and the URL as it is now. */
export interface LoadedDelivery {
  delivery: DeliveryRow;
  keyCiphertext: string | null;
  url: string | null;
}

/** The stored delivery's columns of a load (null when none is stored yet), and the facts beside them. */
interface StoredColumns {
  d_id: string | null;
  d_status: string | null;
  d_attempts: number | null;
  d_url: string | null;
  d_body: string | null;
  d_is_test: boolean | null;
  d_project_id: ProjectId | null;
  key_ciphertext: string | null;
  /** The project's URL for the delivery's mode now: every attempt goes there, so a fixed URL is used next. */
  cur_url: string | null;
}

export type OutboundLoad = Partial<EventSource> & StoredColumns;
export type InboundLoad = StoredColumns & {
  id: string | null;
  project_id: ProjectId | null;
  is_test: boolean | null;
  webhook_body: string | null;
};

const STORED = `d.id AS d_id, d.status AS d_status, d.attempts AS d_attempts, d.url AS d_url, d.body AS d_body,
         d.is_test AS d_is_test, d.project_id AS d_project_id`;

/**
 * One round trip: the stored delivery of this event if there is one, else the facts to build it from, and in
 * both cases the encrypted signing key of the send's mode.
 */
const LOAD_OUTBOUND_SQL = `
  SELECT ${STORED},
         a.id, a.project_id, a.is_test, a.recipient, a.provider_message_id, a.campaign_id, a.batch_id, a.email_type,
         m.id AS email_id, m.from_email, m.subject, m.template_id IS NOT NULL AS from_template, a.data,
         p.webhook_url, p.webhook_url_dev, k.key_ciphertext,
         NULLIF(CASE WHEN COALESCE(d.is_test, a.is_test) THEN p.webhook_url_dev ELSE p.webhook_url END, '') AS cur_url
    FROM (SELECT 1) one
    LEFT JOIN webhook_deliveries d ON d.event_id = $1 AND d.kind = 'outbound'
    -- by primary key only, then the project: with both in one condition, a table never analyzed (autovacuum off,
    -- a fresh database) gets the (project_id, created_at) index and every event read the project's whole history
    LEFT JOIN LATERAL (SELECT * FROM activities WHERE id = $2 OFFSET 0) a ON a.project_id = $3
    LEFT JOIN email_messages m ON m.id = a.email_message_id
    LEFT JOIN projects p ON p.id = COALESCE(d.project_id, a.project_id)
    LEFT JOIN api_keys k ON k.project_id = COALESCE(d.project_id, a.project_id)
                        AND k.active_mode = CASE WHEN COALESCE(d.is_test, a.is_test) THEN 'test' ELSE 'live' END`;

/**
 * The same for an inbound reply (email.inbound): its body was built and stored by inbound-mail with the reply
 * (spec 6.2's exact body), and it goes to the project's inbound URL of the reply's mode.
 */
const LOAD_INBOUND_SQL = `
  SELECT ${STORED},
         im.id, im.project_id, im.is_test, im.webhook_body, k.key_ciphertext,
         NULLIF(CASE WHEN COALESCE(d.is_test, im.is_test) THEN p.inbound_webhook_url_dev ELSE p.inbound_webhook_url END, '') AS cur_url
    FROM (SELECT 1) one
    LEFT JOIN webhook_deliveries d ON d.event_id = $1 AND d.kind = 'inbound'
    LEFT JOIN LATERAL (SELECT * FROM inbound_messages WHERE id = $2::uuid OFFSET 0) im ON im.project_id = $3::uuid
    LEFT JOIN projects p ON p.id = COALESCE(d.project_id, im.project_id)
    LEFT JOIN api_keys k ON k.project_id = COALESCE(d.project_id, im.project_id)
                        AND k.active_mode = CASE WHEN COALESCE(d.is_test, im.is_test) THEN 'test' ELSE 'live' END`;

/** An email event's delivery (stored or not) with the send it is about, scoped to the send's project. */
export async function loadOutboundDelivery(
  db: Db,
  projectId: ProjectId,
  eventId: string,
  activityId: string,
): Promise<OutboundLoad | null> {
  return (
    (await db.pool.query<OutboundLoad>(LOAD_OUTBOUND_SQL, [eventId, activityId, projectId])).rows[0] ?? null
  );
}

/** An inbound reply's delivery (stored or not) with the reply, scoped to the reply's project. */
export async function loadInboundDelivery(
  db: Db,
  projectId: ProjectId,
  eventId: string,
  inboundEmailId: string,
): Promise<InboundLoad | null> {
  return (
    (await db.pool.query<InboundLoad>(LOAD_INBOUND_SQL, [eventId, inboundEmailId, projectId])).rows[0] ?? null
  );
}

/** The delivery a load found stored, or null when it found none. */
export function storedDelivery(r: StoredColumns): DeliveryRow | null {
  if (!r.d_id) return null;
  return {
    id: r.d_id,
    project_id: r.d_project_id!,
    is_test: r.d_is_test!,
    url: r.d_url,
    body: r.d_body!,
    status: r.d_status!,
    attempts: r.d_attempts!,
  };
}

/**
 * Stores an event's delivery once, `pending` (or `skipped` without a URL). A redelivered copy's consumer may
 * have stored it first: that one is returned.
 */
export async function storeDelivery(
  db: Db,
  projectId: ProjectId,
  d: {
    eventId: string;
    kind: DeliveryKind;
    event: string;
    isTest: boolean;
    url: string | null;
    body: string;
  },
): Promise<DeliveryRow | null> {
  const inserted = await db.pool.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, now()) ON CONFLICT (event_id, kind) DO NOTHING
     RETURNING id, project_id, is_test, url, body, status, attempts`,
    [projectId, d.eventId, d.kind, d.event, d.isTest, d.url, d.body, d.url ? "pending" : "skipped"],
  );
  if (inserted.rows[0]) return inserted.rows[0];
  const existing = await db.pool.query<DeliveryRow>(
    `SELECT id, project_id, is_test, url, body, status, attempts FROM webhook_deliveries
      WHERE event_id = $1 AND kind = $2`,
    [d.eventId, d.kind],
  );
  return existing.rows[0] ?? null;
}

/** The project has no URL for the delivery's mode (any more): no attempt follows, it ends as `skipped`. */
export async function skipDelivery(db: Db, eventId: string, kind: DeliveryKind): Promise<void> {
  await db.pool.query(
    `UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL, updated_at = now()
      WHERE event_id = $1 AND kind = $2 AND status IN ('pending', 'failed')`,
    [eventId, kind],
  );
}

/** One attempt logged and the delivery moved on (its status, the URL it went to, when the next is due). */
export async function recordAttempt(
  db: Db,
  d: Pick<DeliveryRow, "id" | "project_id">,
  a: {
    attempt: number;
    statusCode: number | null;
    responseBody: string | null;
    durationMs: number;
    error: string | null;
    status: string;
    nextDelayMs: number | null;
    url: string;
  },
): Promise<void> {
  await db.pool.query(
    `WITH a AS (
       INSERT INTO webhook_attempts (id, delivery_id, project_id, attempt_number, status_code, response_body, duration_ms, error)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7))
     UPDATE webhook_deliveries SET attempts = $3, status = $8, last_status_code = $4, url = $10, updated_at = now(),
            next_attempt_at = CASE WHEN $9::int IS NULL THEN NULL ELSE now() + $9::int * interval '1 millisecond' END
      WHERE id = $1`,
    [
      d.id,
      d.project_id,
      a.attempt,
      a.statusCode,
      a.responseBody,
      a.durationMs,
      a.error,
      a.status,
      a.nextDelayMs,
      a.url,
    ],
  );
}
