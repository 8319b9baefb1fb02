import { webCrypto } from "./web-crypto.js";

/*
 * Webhooks the service sends to the project's URLs (spec 6). Every one, outbound email events and the inbound
 * reply alike, carries two signatures, both HMAC-SHA256 keyed with the bytes of the project's API key of the
 * send's mode (the live key for live sends, the test key for test sends):
 *   - `X-SVC-Signature: sha256=<hex HMAC(raw body)>` (spec 6.2);
 *   - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 *     `webhook-signature: v1,<base64 HMAC("<id>.<timestamp>.<raw body>")>`, which binds the time, so an old
 *     delivery replayed later is refused.
 */

/** Fields of every outbound email event's `data`. */
export interface EmailEventData {
  activity_id: string;
  email_id: string | null;
  /** The provider's message id. */
  message_id: string | null;
  project_id: string;
  recipient: string;
  from: string;
  subject: string;
  campaign_id: string | null;
  batch_id: string | null;
  email_type: string | null;
  /** When it happened (ISO 8601). */
  timestamp: string;
  /** Set on some provider events (e.g. why a send was refused). */
  reason?: string;
}

interface EmailEventOf<E extends string, Extra = object> {
  event: E;
  is_test: boolean;
  /** When the webhook was built (ISO 8601). */
  created_at: string;
  data: EmailEventData & Extra;
}

export type EmailSentEvent = EmailEventOf<"email.sent">;
export type EmailDeliveredEvent = EmailEventOf<"email.delivered">;
export type EmailBouncedEvent = EmailEventOf<
  "email.bounced",
  {
    bounce: {
      /** `Permanent`, `Transient` or `Undetermined`. */
      type: string | null;
      sub_type: string | null;
      recipients: { email: string; diagnostic: string | null }[];
    };
  }
>;
export type EmailComplainedEvent = EmailEventOf<
  "email.complained",
  { complaint: { feedback_type: string | null; recipients: string[] } }
>;
export type EmailOpenedEvent = EmailEventOf<"email.opened">;
export type EmailClickedEvent = EmailEventOf<"email.clicked", { url?: string }>;
export type EmailRejectedEvent = EmailEventOf<"email.rejected", { reject: { reason: string | null } }>;
export type EmailDeliveryDelayedEvent = EmailEventOf<
  "email.delivery_delayed",
  { delivery_delay: { type: string | null } }
>;

export interface InboundAddress {
  email: string;
  name: string | null;
}

/** A reply to an email sent through the API (spec 6.2), sent to `inbound_webhook_url` / `inbound_webhook_url_dev`. */
export interface EmailInboundEvent {
  event: "email.inbound";
  /** When the reply was received (ISO 8601). */
  timestamp: string;
  project_id: string;
  is_test: boolean;
  data: {
    message_id: string;
    thread_id: string;
    in_reply_to: string;
    references: string[];
    from: InboundAddress;
    to: InboundAddress[];
    cc: InboundAddress[];
    subject: string;
    text_body: string;
    /** As received, scripts included: sanitise before showing it. */
    html_body: string;
    date: string;
    attachments: {
      filename: string;
      content_type: string;
      size: number;
      storage_key: string;
      /** Signed, valid 7 days. */
      download_url: string;
    }[];
    return_path_parsed: { project_id: string; activity_id: string } | null;
    original_outbound: {
      message_id: string;
      activity_id: string | null;
      campaign_id: string | null;
      email_type: string | null;
      thread_id: string;
    };
    /** The new text of the reply, quoted history and signature removed. */
    reply_text: string;
    kind: "reply" | "auto_reply" | "bounce_report" | "forward";
    /** The provider's verdicts (`PASS`, `FAIL`, `GRAY`, …) where it gave them. */
    verdicts: {
      spam: string | null;
      virus: string | null;
      spf: string | null;
      dkim: string | null;
      dmarc: string | null;
      dmarc_policy: string | null;
    };
    suspicious: boolean;
    /** How the reply was matched to its thread (reply token, In-Reply-To, …). */
    matched_by: string;
    /** GET /v1/inbound/:id/raw gives the reply's MIME. */
    inbound_id: string;
  };
}

export type EmailEvent =
  | EmailSentEvent
  | EmailDeliveredEvent
  | EmailBouncedEvent
  | EmailComplainedEvent
  | EmailOpenedEvent
  | EmailClickedEvent
  | EmailRejectedEvent
  | EmailDeliveryDelayedEvent;

/** Every webhook the service sends, discriminated by `event`. */
export type WebhookEvent = EmailEvent | EmailInboundEvent;
export type WebhookEventName = WebhookEvent["event"];

export const WEBHOOK_EVENT_NAMES: readonly WebhookEventName[] = [
  "email.sent",
  "email.delivered",
  "email.bounced",
  "email.complained",
  "email.opened",
  "email.clicked",
  "email.rejected",
  "email.delivery_delayed",
  "email.inbound",
];

/** Thrown by `verifyWebhook` when a delivery is not authentic, too old, or not an event. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

export type WebhookHeaders =
  Headers | Record<string, string | string[] | undefined> | Iterable<[string, string]>;

export interface VerifyWebhookOptions {
  /**
   * How far `webhook-timestamp` may be from now, in seconds (default 300, the Standard Webhooks tolerance). A
   * delivery outside it is refused, so a captured one cannot be replayed later.
   */
  toleranceSeconds?: number;
  /**
   * Refuse deliveries that carry only `X-SVC-Signature` (it signs the body alone, so it does not expire). The
   * service always sends both; default false, for receivers behind a proxy that drops the other headers.
   */
  requireTimestamp?: boolean;
  /** The current time (tests). */
  now?: Date;
}

/**
 * Checks a webhook delivery and returns its event. `rawBody` is the body exactly as received (verify before any
 * JSON parsing: re-serialising changes the bytes); `key` is the project's API key of the send's mode (a live
 * key for live events, the test key for `is_test` ones), or the Standard Webhooks form `whsec_<base64 of it>`.
 *
 * The Standard Webhooks signature is checked when its headers are there (with the timestamp tolerance), and
 * `X-SVC-Signature` whenever it is there; at least one must be, and every one present must match. Comparisons
 * are constant-time. Throws `WebhookVerificationError`.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  key: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  if (!key) throw new WebhookVerificationError("No key to verify with");
  const body = toBytes(rawBody);
  const h = headerReader(headers);
  const hmacKey = await importKey(keyBytes(key));
  const svc = h("x-svc-signature");
  const id = h("webhook-id");
  const timestamp = h("webhook-timestamp");
  const signatures = h("webhook-signature");
  const standard = id !== undefined || timestamp !== undefined || signatures !== undefined;

  if (!standard && svc === undefined) throw new WebhookVerificationError("No signature headers");
  if (!standard && options.requireTimestamp)
    throw new WebhookVerificationError("No webhook-timestamp: the delivery cannot be dated");

  if (standard) {
    if (!id || !timestamp || !signatures)
      throw new WebhookVerificationError(
        "Incomplete webhook-id / webhook-timestamp / webhook-signature headers",
      );
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("Invalid webhook-timestamp");
    const tolerance = options.toleranceSeconds ?? 300;
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const age = now - Number(timestamp);
    if (age > tolerance) throw new WebhookVerificationError("Webhook timestamp too old");
    if (age < -tolerance) throw new WebhookVerificationError("Webhook timestamp too new");
    const expected = await sign(hmacKey, concat(utf8(`${id}.${timestamp}.`), body));
    // Space-separated `v1,<base64>` entries (several during a key rotation); one match is enough.
    const matched = signatures
      .split(" ")
      .filter((s) => s.startsWith("v1,"))
      .some((s) => {
        const given = fromBase64(s.slice(3));
        return given !== null && timingSafeEqual(given, expected);
      });
    if (!matched) throw new WebhookVerificationError("webhook-signature does not match");
  }

  if (svc !== undefined) {
    const m = /^sha256=([0-9a-fA-F]{64})$/.exec(svc.trim());
    const expected = await sign(hmacKey, body);
    if (!m || !timingSafeEqual(fromHex(m[1]!), expected))
      throw new WebhookVerificationError("X-SVC-Signature does not match");
  }

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError("Body is not JSON");
  }
  if (!event || typeof event !== "object" || typeof (event as { event?: unknown }).event !== "string")
    throw new WebhookVerificationError("Body is not a webhook event");
  return event as WebhookEvent;
}

/** Constant-time equality of two byte strings (the length is not secret: both are HMAC-SHA256 outputs). */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Bytes on a plain ArrayBuffer (what Web Crypto's types take). */
type Bytes = Uint8Array<ArrayBuffer>;

async function importKey(bytes: Bytes): Promise<CryptoKey> {
  const { subtle } = await webCrypto();
  return subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function sign(key: CryptoKey, data: Bytes): Promise<Bytes> {
  const { subtle } = await webCrypto();
  return new Uint8Array(await subtle.sign("HMAC", key, data));
}

/** The HMAC key: the API key's UTF-8 bytes, or the decoded bytes of a `whsec_` secret. */
function keyBytes(key: string): Bytes {
  if (key.startsWith("whsec_")) {
    const decoded = fromBase64(key.slice("whsec_".length));
    if (!decoded) throw new WebhookVerificationError("Invalid whsec_ secret");
    return decoded;
  }
  return utf8(key);
}

function headerReader(headers: WebhookHeaders): (name: string) => string | undefined {
  const map = new Map<string, string>();
  const put = (name: string, value: string | string[] | undefined) => {
    if (value === undefined) return;
    map.set(name.toLowerCase(), Array.isArray(value) ? value.join(" ") : value);
  };
  if (typeof (headers as Headers).forEach === "function" && typeof (headers as Headers).get === "function")
    (headers as Headers).forEach((value, name) => put(name, value));
  else if (Symbol.iterator in Object(headers))
    for (const [name, value] of headers as Iterable<[string, string]>) put(name, value);
  else
    for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>))
      put(name, value);
  return (name) => map.get(name);
}

const utf8 = (s: string): Bytes => new Uint8Array(new TextEncoder().encode(s));

function toBytes(body: string | Uint8Array | ArrayBuffer): Bytes {
  if (typeof body === "string") return utf8(body);
  // a copy: a Node Buffer may be a view into a larger pool, or on a SharedArrayBuffer
  return new Uint8Array(body);
}

function concat(a: Bytes, b: Bytes): Bytes {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function fromHex(hex: string): Bytes {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function fromBase64(s: string): Bytes | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  try {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}
