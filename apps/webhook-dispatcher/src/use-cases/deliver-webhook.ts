import { type Dispatcher, request } from "undici";
import { decryptSecret, type Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { signedHeaders } from "../domain/sign";
import { buildEventBody, type EventPayload, type EventSource } from "./build-event-body";
import type { WebhookDestinations } from "./webhook-destinations";

export interface DeliverDeps {
  db: Db;
  logger: Logger;
  encryptionKey: string;
  timeoutMs: number;
  maxAttempts: number;
  dispatcher?: Dispatcher;
  /** When given, an event whose project has no URL for its mode is dropped before anything is stored. */
  destinations?: WebhookDestinations;
}

interface DeliveryRow {
  id: string;
  project_id: string;
  is_test: boolean;
  url: string | null;
  body: string;
  status: string;
  attempts: number;
}

const FINAL = new Set(["succeeded", "skipped", "exhausted"]);

/**
 * One round trip: the stored delivery of this event if there is one, else the facts to build it from, and in
 * both cases the encrypted signing key of the send's mode.
 */
const LOAD_SQL = `
  SELECT d.id AS d_id, d.status AS d_status, d.attempts AS d_attempts, d.url AS d_url, d.body AS d_body,
         d.is_test AS d_is_test, d.project_id AS d_project_id,
         a.id, a.project_id, a.is_test, a.recipient, a.provider_message_id, a.campaign_id, a.batch_id, a.email_type,
         m.id AS email_id, m.from_email, m.subject, p.webhook_url, p.webhook_url_dev, k.key_ciphertext
    FROM (SELECT 1) one
    LEFT JOIN webhook_deliveries d ON d.event_id = $1 AND d.kind = 'outbound'
    LEFT JOIN activities a ON a.id = $2 AND a.project_id = $3
    LEFT JOIN email_messages m ON m.id = a.email_message_id
    LEFT JOIN projects p ON p.id = a.project_id
    LEFT JOIN api_keys k ON k.project_id = COALESCE(d.project_id, a.project_id)
                        AND k.active_mode = CASE WHEN COALESCE(d.is_test, a.is_test) THEN 'test' ELSE 'live' END`;

type LoadRow = Partial<EventSource> & {
  d_id: string | null;
  d_status: string | null;
  d_attempts: number | null;
  d_url: string | null;
  d_body: string | null;
  d_is_test: boolean | null;
  d_project_id: string | null;
  key_ciphertext: string | null;
};

async function loadOrCreate(
  deps: DeliverDeps,
  eventId: string,
  event: string,
  payload: EventPayload,
): Promise<{ delivery: DeliveryRow; keyCiphertext: string | null } | null> {
  const r = (await deps.db.pool.query<LoadRow>(LOAD_SQL, [eventId, payload.activityId, payload.projectId]))
    .rows[0];
  if (!r) return null;
  const keyCiphertext = r.key_ciphertext;
  if (r.d_id) {
    return {
      delivery: {
        id: r.d_id,
        project_id: r.d_project_id!,
        is_test: r.d_is_test!,
        url: r.d_url,
        body: r.d_body!,
        status: r.d_status!,
        attempts: r.d_attempts!,
      },
      keyCiphertext,
    };
  }
  if (!r.id) return null;
  // The body is built once and stored: every attempt (and a manual re-send) signs and sends the same bytes.
  const built = buildEventBody(event, r as EventSource, payload);
  const inserted = await deps.db.pool.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, updated_at)
     VALUES (gen_random_uuid(), $1, $2, 'outbound', $3, $4, $5, $6, $7, now()) ON CONFLICT (event_id, kind) DO NOTHING
     RETURNING id, project_id, is_test, url, body, status, attempts`,
    [built.projectId, eventId, event, built.isTest, built.url, built.body, built.url ? "pending" : "skipped"],
  );
  if (inserted.rows[0]) return { delivery: inserted.rows[0], keyCiphertext };
  // Another consumer of a redelivered copy stored it first: take that one.
  const existing = await deps.db.pool.query<DeliveryRow>(
    "SELECT id, project_id, is_test, url, body, status, attempts FROM webhook_deliveries WHERE event_id = $1 AND kind = 'outbound'",
    [eventId],
  );
  return existing.rows[0] ? { delivery: existing.rows[0], keyCiphertext } : null;
}

/**
 * One delivery attempt of an email event to the project's webhook URL (live → webhook_url, test →
 * webhook_url_dev; never a fallback to the other). An event with no URL for its mode is delivered nowhere: with
 * `destinations` it is dropped at once (the event itself stays stored as the email event record and the
 * activity's state); without, or if the URL went away after a delivery was stored, the delivery is `skipped`.
 * Every attempt is logged (status, response body cut to 5,000 characters, duration, error). Returns "retry" when another attempt is due.
 */
export async function deliverWebhook(
  deps: DeliverDeps,
  eventId: string,
  event: string,
  payload: EventPayload,
): Promise<"done" | "retry"> {
  if (deps.destinations && payload.projectId && typeof payload.isTest === "boolean") {
    if (!(await deps.destinations.urlFor(payload.projectId, payload.isTest))) return "done";
  }
  const loaded = await loadOrCreate(deps, eventId, event, payload);
  if (!loaded) return "done";
  const d = loaded.delivery;
  if (FINAL.has(d.status) || !d.url) return "done";
  const key = loaded.keyCiphertext ? decryptSecret(loaded.keyCiphertext, deps.encryptionKey) : null;
  const attempt = d.attempts + 1;
  const started = Date.now();
  let statusCode: number | null = null;
  let responseBody: string | null = null;
  let error: string | null = null;
  if (!key) {
    error = "project has no active API key to sign with";
  } else {
    try {
      const res = await request(d.url, {
        method: "POST",
        headers: signedHeaders(d.body, key, eventId),
        body: d.body,
        headersTimeout: deps.timeoutMs,
        bodyTimeout: deps.timeoutMs,
        signal: AbortSignal.timeout(deps.timeoutMs),
        ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
      });
      statusCode = res.statusCode;
      responseBody = (await res.body.text()).slice(0, 5000);
    } catch (err) {
      error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
  }
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const status = ok ? "succeeded" : attempt >= deps.maxAttempts ? "exhausted" : "failed";
  await deps.db.pool.query(
    `WITH a AS (
       INSERT INTO webhook_attempts (id, delivery_id, project_id, attempt_number, status_code, response_body, duration_ms, error)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7))
     UPDATE webhook_deliveries SET attempts = $3, status = $8, last_status_code = $4, updated_at = now(),
            next_attempt_at = CASE WHEN $8 = 'failed' THEN now() ELSE NULL END
      WHERE id = $1`,
    [d.id, d.project_id, attempt, statusCode, responseBody, Date.now() - started, error, status],
  );
  if (!ok) deps.logger.info({ deliveryId: d.id, attempt, statusCode, error }, "webhook attempt failed");
  return status === "failed" ? "retry" : "done";
}
