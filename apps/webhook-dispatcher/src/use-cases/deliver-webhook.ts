import { type Dispatcher, request } from "undici";
import { getSigningKey, type Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { signedHeaders } from "../domain/sign";
import { buildEventBody, type EventPayload } from "./build-event-body";

export interface DeliverDeps {
  db: Db;
  logger: Logger;
  encryptionKey: string;
  timeoutMs: number;
  maxAttempts: number;
  dispatcher?: Dispatcher;
}

interface DeliveryRow {
  id: string;
  project_id: string;
  event: string;
  is_test: boolean;
  url: string | null;
  body: string;
  status: string;
  attempts: number;
}

const FINAL = new Set(["succeeded", "skipped", "exhausted"]);

async function loadOrCreate(
  deps: DeliverDeps,
  eventId: string,
  event: string,
  payload: EventPayload,
): Promise<DeliveryRow | null> {
  const existing = await deps.db.pool.query<DeliveryRow>(
    "SELECT * FROM webhook_deliveries WHERE event_id = $1 AND kind = 'outbound'",
    [eventId],
  );
  if (existing.rows[0]) return existing.rows[0];
  const built = await buildEventBody(deps.db, event, payload);
  if (!built) return null;
  // The body is built once and stored: every attempt (and a manual re-send) signs and sends the same bytes.
  await deps.db.pool.query(
    `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, updated_at)
     VALUES (gen_random_uuid(), $1, $2, 'outbound', $3, $4, $5, $6, $7, now()) ON CONFLICT (event_id, kind) DO NOTHING`,
    [built.projectId, eventId, event, built.isTest, built.url, built.body, built.url ? "pending" : "skipped"],
  );
  return (
    (
      await deps.db.pool.query<DeliveryRow>(
        "SELECT * FROM webhook_deliveries WHERE event_id = $1 AND kind = 'outbound'",
        [eventId],
      )
    ).rows[0] ?? null
  );
}

/**
 * One delivery attempt of an email event to the project's webhook URL (live → webhook_url, test →
 * webhook_url_dev; an empty URL stores the delivery as `skipped`, never falls back). Every attempt is logged
 * (status, response body cut to 5,000 characters, duration, error). Returns "retry" when another attempt is due.
 */
export async function deliverWebhook(
  deps: DeliverDeps,
  eventId: string,
  event: string,
  payload: EventPayload,
): Promise<"done" | "retry"> {
  const d = await loadOrCreate(deps, eventId, event, payload);
  if (!d || FINAL.has(d.status) || !d.url) return "done";
  const key = await getSigningKey(deps.db, d.project_id, d.is_test ? "test" : "live", deps.encryptionKey);
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
