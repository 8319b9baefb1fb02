import { type Dispatcher, request } from "undici";
import { isUuid, type ProjectId } from "@emailsvc/contracts";
import {
  decryptSecret,
  type Db,
  type EventSource,
  type DeliveryKind,
  type DeliveryRow,
  type DeliveryWrites,
  type LoadedDelivery,
  type OutboundLoad,
  type OutboundRef,
  loadInboundDelivery,
  loadOutboundDelivery,
  recordAttempt,
  skipDelivery,
  type NewDelivery,
  storedDelivery,
  storeDelivery,
  storeFirstAttempts,
} from "@emailsvc/db";
import { isBlockedAddress, refusedLiteral, type AddressPolicy } from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";
import { signedHeaders } from "../domain/sign";
import { buildEventBody, type EventPayload } from "./build-event-body";
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
  /** Stores deliveries and logs attempts (group-committed: `createDeliveryWrites`); one statement each without. */
  writes?: DeliveryWrites;
  /** Reads an event's delivery and send (batched: `createOutboundLoads`); one statement each without. */
  loadOutbound?: (ref: OutboundRef) => Promise<OutboundLoad | null>;
}

const writesOf = (deps: DeliverDeps): DeliveryWrites =>
  deps.writes ?? {
    store: (projectId, d) => storeDelivery(deps.db, projectId, d),
    record: (d, a) => recordAttempt(deps.db, d, a),
    storeAttempted: async (projectId, d, a) =>
      (await storeFirstAttempts(deps.db, [{ projectId, delivery: d, attempt: a }]))[0]!,
  };

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

const FINAL = new Set(["succeeded", "skipped", "exhausted"]);

/**
 * Signing keys already decrypted, by ciphertext: all of a project's deliveries sign with the same key, and each
 * had its own AES-GCM decryption (0.5% of the dispatcher's CPU samples under send-pipeline). A rotated key has a
 * new ciphertext, so it is decrypted when first used; the map is emptied when it holds KEY_CACHE_MAX keys.
 */
const signingKeys = new Map<string, string>();
const KEY_CACHE_MAX = 1000;

function signingKey(ciphertext: string, encryptionKey: string): string {
  let key = signingKeys.get(ciphertext);
  if (key === undefined) {
    key = decryptSecret(ciphertext, encryptionKey);
    if (signingKeys.size >= KEY_CACHE_MAX) signingKeys.clear();
    signingKeys.set(ciphertext, key);
  }
  return key;
}

export type { DeliveryKind };

/**
 * What an attempt needs: the stored delivery, or, for an event's first attempt, the delivery still to store
 * (`unstored`), written with the attempt's outcome in one statement after it.
 */
interface Attemptable extends LoadedDelivery {
  unstored?: { projectId: ProjectId; delivery: NewDelivery };
}

/** What an email.inbound names. */
export interface InboundPayload {
  inboundEmailId: string;
  projectId: ProjectId;
  isTest?: boolean;
}

async function loadOrCreate(
  deps: DeliverDeps,
  eventId: string,
  event: string,
  payload: EventPayload,
): Promise<Attemptable | null> {
  const r = await (deps.loadOutbound
    ? deps.loadOutbound({ projectId: payload.projectId, eventId, activityId: payload.activityId })
    : loadOutboundDelivery(deps.db, payload.projectId, eventId, payload.activityId));
  if (!r) return null;
  const loaded = (delivery: DeliveryRow | null) =>
    delivery ? { delivery, keyCiphertext: r.key_ciphertext, url: r.cur_url } : null;
  const stored = storedDelivery(r);
  if (stored || !r.id) return loaded(stored);
  // The body is built once and stored: every attempt (and a manual re-send) signs and sends the same bytes.
  const built = buildEventBody(event, r as EventSource, payload);
  const delivery: NewDelivery = {
    eventId,
    kind: "outbound",
    event,
    isTest: built.isTest,
    url: built.url,
    body: built.body,
  };
  // With no URL to attempt, stored at once as `skipped`. Otherwise stored after the first attempt, with its
  // outcome, in one statement: a dispatcher that dies in between leaves nothing stored, and the redelivered event
  // builds the same body and attempts it again.
  if (!r.cur_url) return loaded(await writesOf(deps).store(built.projectId, delivery));
  return {
    delivery: {
      id: "",
      project_id: built.projectId,
      is_test: built.isTest,
      url: built.url,
      body: built.body,
      status: "pending",
      attempts: 0,
    },
    keyCiphertext: r.key_ciphertext,
    url: r.cur_url,
    unstored: { projectId: built.projectId, delivery },
  };
}

async function loadOrCreateInbound(
  deps: DeliverDeps,
  eventId: string,
  payload: InboundPayload,
): Promise<LoadedDelivery | null> {
  if (!isUuid(payload.inboundEmailId)) return null;
  const r = await loadInboundDelivery(deps.db, payload.projectId, eventId, payload.inboundEmailId);
  if (!r) return null;
  const loaded = (delivery: DeliveryRow | null) =>
    delivery ? { delivery, keyCiphertext: r.key_ciphertext, url: r.cur_url } : null;
  const stored = storedDelivery(r);
  if (stored || !r.id || !r.webhook_body) return loaded(stored);
  return loaded(
    await writesOf(deps).store(r.project_id!, {
      eventId,
      kind: "inbound",
      event: "email.inbound",
      isTest: r.is_test!,
      url: r.cur_url,
      body: r.webhook_body,
    }),
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
      await skipDelivery(deps.db, eventId, "outbound");
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
  loaded: Attemptable | null,
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
  const key = loaded.keyCiphertext ? signingKey(loaded.keyCiphertext, deps.encryptionKey) : null;
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
    // The whole attempt's deadline, cleared when it ends: AbortSignal.timeout's timer ran on after every delivery
    // and made its TimeoutError when it fired, 30 against 12 µs per delivery (a microbench).
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
      deps.timeoutMs,
    );
    try {
      const res = await request(target, {
        method: "POST",
        headers: signedHeaders(d.body, key, eventId),
        body: d.body,
        headersTimeout: deps.timeoutMs,
        bodyTimeout: deps.timeoutMs,
        signal: deadline.signal,
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
    } finally {
      clearTimeout(timer);
    }
  }
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const status = ok ? "succeeded" : attempt >= deps.maxAttempts ? "exhausted" : "failed";
  const delays = deps.retryDelaysMs ?? [];
  const nextDelayMs = status === "failed" ? (delays[Math.min(attempt, delays.length) - 1] ?? 0) : null;
  const record = {
    attempt,
    statusCode,
    responseBody,
    durationMs: Date.now() - started,
    error,
    status,
    nextDelayMs,
    url,
  };
  const writes = writesOf(deps);
  if (loaded.unstored) {
    // Another copy of the event (a redelivery running at the same time) stored it first: logged on that one.
    const first = await writes.storeAttempted(loaded.unstored.projectId, loaded.unstored.delivery, record);
    if (first) await writes.record(first, record);
  } else {
    await writes.record(d, record);
  }
  if (!ok)
    deps.logger.info(
      { deliveryId: d.id || undefined, eventId, attempt, statusCode, error },
      "webhook attempt failed",
    );
  return status === "failed" ? "retry" : "done";
}
