import { type Dispatcher, request } from "undici";
import { isUuid } from "@emailsvc/contracts";
import { decryptSecret, type Db } from "@emailsvc/db";
import { isBlockedAddress, refusedLiteral, type AddressPolicy } from "@emailsvc/http";
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
  /** Connects only where `allowAddress` allows (a `guardedAgent` in production). */
  dispatcher?: Dispatcher;
  /** Which addresses a webhook URL may point to: public unicast only, unless a local stack or test lifts it. */
  allowAddress: AddressPolicy;
  /** When given, an event whose project has no URL for its mode is dropped before anything is stored. */
  destinations?: WebhookDestinations;
  /** The broker's waits between attempts (spec 6.3), for `next_attempt_at`. */
  retryDelaysMs?: readonly number[];
}

/** Logged per attempt (spec 8: "Logged response body: 5,000 characters"). */
const LOGGED_CHARACTERS = 5000;
/** Bytes read of a response at most: 5,000 characters of UTF-8; the rest is never buffered. */
const READ_BYTES = LOGGED_CHARACTERS * 4;

/**
 * The start of a receiver's answer, as text PostgreSQL can store: a 150 MB answer is not held in memory (only
 * its first bytes are read), and a NUL is dropped (a text column refuses it, and the failed insert made the
 * broker retry the whole delivery, POSTing the event again).
 */
async function responseStart(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= READ_BYTES) {
      body.destroy();
      break;
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, READ_BYTES));
  return text.replaceAll("\0", "").slice(0, LOGGED_CHARACTERS);
}

const MSG_BLOCKED = "webhook URL points to a private or reserved address";

/** The URL to POST to, or why it is refused (logged as the attempt's error; a fixed URL is used next time). */
function checkTarget(url: string, allow: AddressPolicy): URL | string {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return "webhook URL is not a valid URL";
  }
  if (target.protocol !== "http:" && target.protocol !== "https:")
    return "webhook URL must use http or https";
  return refusedLiteral(target, allow) ? MSG_BLOCKED : target;
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
         m.id AS email_id, m.from_email, m.subject, m.template_id IS NOT NULL AS from_template, a.data,
         p.webhook_url, p.webhook_url_dev, k.key_ciphertext,
         NULLIF(CASE WHEN COALESCE(d.is_test, a.is_test) THEN p.webhook_url_dev ELSE p.webhook_url END, '') AS cur_url
    FROM (SELECT 1) one
    LEFT JOIN webhook_deliveries d ON d.event_id = $1 AND d.kind = 'outbound'
    LEFT JOIN activities a ON a.id = $2 AND a.project_id = $3
    LEFT JOIN email_messages m ON m.id = a.email_message_id
    LEFT JOIN projects p ON p.id = COALESCE(d.project_id, a.project_id)
    LEFT JOIN api_keys k ON k.project_id = COALESCE(d.project_id, a.project_id)
                        AND k.active_mode = CASE WHEN COALESCE(d.is_test, a.is_test) THEN 'test' ELSE 'live' END`;

/**
 * The same for an inbound reply (email.inbound): its body was built and stored by inbound-mail with the reply
 * (spec 6.2's exact body), and it goes to the project's inbound URL of the reply's mode.
 */
const LOAD_INBOUND_SQL = `
  SELECT d.id AS d_id, d.status AS d_status, d.attempts AS d_attempts, d.url AS d_url, d.body AS d_body,
         d.is_test AS d_is_test, d.project_id AS d_project_id,
         im.id, im.project_id, im.is_test, im.webhook_body, k.key_ciphertext,
         NULLIF(CASE WHEN COALESCE(d.is_test, im.is_test) THEN p.inbound_webhook_url_dev ELSE p.inbound_webhook_url END, '') AS cur_url
    FROM (SELECT 1) one
    LEFT JOIN webhook_deliveries d ON d.event_id = $1 AND d.kind = 'inbound'
    LEFT JOIN inbound_messages im ON im.id = $2::uuid AND im.project_id = $3::uuid
    LEFT JOIN projects p ON p.id = COALESCE(d.project_id, im.project_id)
    LEFT JOIN api_keys k ON k.project_id = COALESCE(d.project_id, im.project_id)
                        AND k.active_mode = CASE WHEN COALESCE(d.is_test, im.is_test) THEN 'test' ELSE 'live' END`;

/** Which of a project's two pairs of URLs a delivery goes to: email events, or inbound replies. */
export type DeliveryKind = "outbound" | "inbound";

/** What an email.inbound names. */
export interface InboundPayload {
  inboundEmailId: string;
  projectId: string;
  isTest?: boolean;
}

type LoadRow = Partial<EventSource> & {
  d_id: string | null;
  d_status: string | null;
  d_attempts: number | null;
  d_url: string | null;
  d_body: string | null;
  d_is_test: boolean | null;
  d_project_id: string | null;
  key_ciphertext: string | null;
  cur_url: string | null;
};

async function loadOrCreate(
  deps: DeliverDeps,
  eventId: string,
  event: string,
  payload: EventPayload,
): Promise<{ delivery: DeliveryRow; keyCiphertext: string | null; url: string | null } | null> {
  const r = (await deps.db.pool.query<LoadRow>(LOAD_SQL, [eventId, payload.activityId, payload.projectId]))
    .rows[0];
  if (!r) return null;
  const keyCiphertext = r.key_ciphertext;
  // Every attempt goes to the project's URL as it is now: a retry or a re-send after the client fixed a broken
  // URL must not keep going to the old one.
  const url = r.cur_url;
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
      url,
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
  if (inserted.rows[0]) return { delivery: inserted.rows[0], keyCiphertext, url };
  // Another consumer of a redelivered copy stored it first: take that one.
  const existing = await deps.db.pool.query<DeliveryRow>(
    "SELECT id, project_id, is_test, url, body, status, attempts FROM webhook_deliveries WHERE event_id = $1 AND kind = 'outbound'",
    [eventId],
  );
  return existing.rows[0] ? { delivery: existing.rows[0], keyCiphertext, url } : null;
}

async function loadOrCreateInbound(
  deps: DeliverDeps,
  eventId: string,
  payload: InboundPayload,
): Promise<{ delivery: DeliveryRow; keyCiphertext: string | null; url: string | null } | null> {
  if (!isUuid(payload.inboundEmailId)) return null;
  const r = (
    await deps.db.pool.query<{
      d_id: string | null;
      d_status: string | null;
      d_attempts: number | null;
      d_url: string | null;
      d_body: string | null;
      d_is_test: boolean | null;
      d_project_id: string | null;
      id: string | null;
      project_id: string | null;
      is_test: boolean | null;
      webhook_body: string | null;
      key_ciphertext: string | null;
      cur_url: string | null;
    }>(LOAD_INBOUND_SQL, [eventId, payload.inboundEmailId, payload.projectId])
  ).rows[0];
  if (!r) return null;
  const keyCiphertext = r.key_ciphertext;
  const url = r.cur_url;
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
      url,
    };
  }
  if (!r.id || !r.webhook_body) return null;
  const inserted = await deps.db.pool.query<DeliveryRow>(
    `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, updated_at)
     VALUES (gen_random_uuid(), $1, $2, 'inbound', 'email.inbound', $3, $4, $5, $6, now()) ON CONFLICT (event_id, kind) DO NOTHING
     RETURNING id, project_id, is_test, url, body, status, attempts`,
    [r.project_id, eventId, r.is_test, url, r.webhook_body, url ? "pending" : "skipped"],
  );
  if (inserted.rows[0]) return { delivery: inserted.rows[0], keyCiphertext, url };
  const existing = await deps.db.pool.query<DeliveryRow>(
    "SELECT id, project_id, is_test, url, body, status, attempts FROM webhook_deliveries WHERE event_id = $1 AND kind = 'inbound'",
    [eventId],
  );
  return existing.rows[0] ? { delivery: existing.rows[0], keyCiphertext, url } : null;
}

/** The project has no URL for the delivery's mode (any more): no attempt follows, it ends as `skipped`. */
async function skipDelivery(db: Db, eventId: string, kind: DeliveryKind = "outbound"): Promise<void> {
  await db.pool.query(
    "UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL, updated_at = now() WHERE event_id = $1 AND kind = $2 AND status IN ('pending', 'failed')",
    [eventId, kind],
  );
}

/**
 * One delivery attempt of an email event to the project's webhook URL as it is now (live → webhook_url, test →
 * webhook_url_dev; never a fallback to the other), only to an address `allowAddress` allows. An event with no URL for its mode is delivered nowhere: with
 * `destinations` it is dropped at once (the event itself stays stored as the email event record and the
 * activity's state); without, or if the URL went away after a delivery was stored, the delivery is `skipped`.
 * Every attempt is logged (status, response body cut to 5,000 characters, duration, error). Returns "retry" when another attempt is due.
 * `report` hears whether the receiver was reached (an answer below 500) when an HTTP attempt was made.
 */
export async function deliverWebhook(
  deps: DeliverDeps,
  eventId: string,
  event: string,
  payload: EventPayload,
  report?: (outcome: "reached" | "unreachable") => void,
): Promise<"done" | "retry"> {
  if (deps.destinations && payload.projectId && typeof payload.isTest === "boolean") {
    if (!(await deps.destinations.urlFor(payload.projectId, payload.isTest))) {
      // Rare: events are published only for projects with a URL. One stored before the URL was removed
      // (a retry, a re-send) ends here, not `failed` or `pending` for ever.
      await skipDelivery(deps.db, eventId);
      return "done";
    }
  }
  return attempt(deps, eventId, "outbound", await loadOrCreate(deps, eventId, event, payload), report);
}

/**
 * One delivery attempt of an inbound reply (email.inbound) to the project's inbound URL as it is now (a reply to a
 * live send → inbound_webhook_url, to a test send → inbound_webhook_url_dev, never the other), with the body
 * inbound-mail stored and the same signatures, attempt log, retries and redelivery as email events.
 */
export async function deliverInboundWebhook(
  deps: DeliverDeps,
  eventId: string,
  payload: InboundPayload,
  report?: (outcome: "reached" | "unreachable") => void,
): Promise<"done" | "retry"> {
  if (deps.destinations && typeof payload.isTest === "boolean") {
    if (!(await deps.destinations.urlFor(payload.projectId, payload.isTest, "inbound"))) {
      await skipDelivery(deps.db, eventId, "inbound");
      return "done";
    }
  }
  return attempt(deps, eventId, "inbound", await loadOrCreateInbound(deps, eventId, payload), report);
}

async function attempt(
  deps: DeliverDeps,
  eventId: string,
  kind: DeliveryKind,
  loaded: { delivery: DeliveryRow; keyCiphertext: string | null; url: string | null } | null,
  report?: (outcome: "reached" | "unreachable") => void,
): Promise<"done" | "retry"> {
  if (!loaded) return "done";
  const d = loaded.delivery;
  if (FINAL.has(d.status)) return "done";
  const url = loaded.url;
  if (!url) {
    await skipDelivery(deps.db, eventId, kind);
    return "done";
  }
  const key = loaded.keyCiphertext ? decryptSecret(loaded.keyCiphertext, deps.encryptionKey) : null;
  const attempt = d.attempts + 1;
  const started = Date.now();
  let statusCode: number | null = null;
  let responseBody: string | null = null;
  let error: string | null = null;
  const target = checkTarget(url, deps.allowAddress);
  if (typeof target === "string") {
    error = target;
  } else if (!key) {
    error = "project has no active API key to sign with";
  } else {
    try {
      const res = await request(target, {
        method: "POST",
        headers: signedHeaders(d.body, key, eventId),
        body: d.body,
        headersTimeout: deps.timeoutMs,
        bodyTimeout: deps.timeoutMs,
        signal: AbortSignal.timeout(deps.timeoutMs),
        ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
      });
      statusCode = res.statusCode;
      responseBody = await responseStart(res.body);
      report?.(statusCode < 500 ? "reached" : "unreachable");
    } catch (err) {
      report?.(statusCode !== null && statusCode < 500 ? "reached" : "unreachable");
      error = isBlockedAddress(err)
        ? MSG_BLOCKED
        : err instanceof Error
          ? `${err.name}: ${err.message}`.replaceAll("\0", "")
          : String(err);
    }
  }
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const status = ok ? "succeeded" : attempt >= deps.maxAttempts ? "exhausted" : "failed";
  const delays = deps.retryDelaysMs ?? [];
  const nextDelayMs = status === "failed" ? (delays[Math.min(attempt, delays.length) - 1] ?? 0) : null;
  await deps.db.pool.query(
    `WITH a AS (
       INSERT INTO webhook_attempts (id, delivery_id, project_id, attempt_number, status_code, response_body, duration_ms, error)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7))
     UPDATE webhook_deliveries SET attempts = $3, status = $8, last_status_code = $4, url = $10, updated_at = now(),
            next_attempt_at = CASE WHEN $9::int IS NULL THEN NULL ELSE now() + $9::int * interval '1 millisecond' END
      WHERE id = $1`,
    [
      d.id,
      d.project_id,
      attempt,
      statusCode,
      responseBody,
      Date.now() - started,
      error,
      status,
      nextDelayMs,
      url,
    ],
  );
  if (!ok) deps.logger.info({ deliveryId: d.id, attempt, statusCode, error }, "webhook attempt failed");
  return status === "failed" ? "retry" : "done";
}
