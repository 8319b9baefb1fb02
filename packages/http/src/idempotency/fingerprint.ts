import { createHash, type Hash } from "node:crypto";

/** Own keys sorted, keys holding `undefined` left out (as JSON.stringify leaves them out). */
function sortedEntries(value: object): [string, unknown][] {
  return Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** JSON with object keys sorted at every level, so `{a,b}` and `{b,a}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  return `{${sortedEntries(value)
    .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
    .join(",")}}`;
}

/**
 * `canonicalJson(value)` in consecutive pieces: objects key by key, arrays element by element (each element
 * whole). Concatenated they are exactly `canonicalJson(value)`.
 */
function* canonicalPieces(value: unknown): Generator<string> {
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) yield (i ? "," : "") + canonicalJson(value[i]);
    yield "]";
  } else if (value !== null && typeof value === "object") {
    yield "{";
    let first = true;
    for (const [k, v] of sortedEntries(value)) {
      yield `${first ? "" : ","}${JSON.stringify(k)}:`;
      yield* canonicalPieces(v);
      first = false;
    }
    yield "}";
  } else {
    yield canonicalJson(value);
  }
}

/** Fields of the send bodies that hold addresses (a string or an array of them). */
const ADDRESS_FIELDS = new Set(["recipient_email", "cc", "bcc", "sender_email", "sender"]);

const lowered = (v: unknown): unknown =>
  typeof v === "string" ? v.toLowerCase() : Array.isArray(v) ? v.map(lowered) : v;

/**
 * The body with its addresses lower-cased: `Bob@x.org` and `bob@X.org` are one mailbox for matching, so a retry
 * that spells an address in another case is the same request (it replays, never 422s). What is sent keeps the
 * client's spelling (RFC 5321 2.4); only the fingerprint compares this way. A shallow copy: other values are shared.
 */
export function addressesLowered(body: unknown): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (ADDRESS_FIELDS.has(k)) out[k] = lowered(v);
    else if (k === "recipients" && Array.isArray(v))
      // send-batch: [{ email, data }]
      out[k] = v.map((r: unknown) =>
        r !== null && typeof r === "object" && typeof (r as { email?: unknown }).email === "string"
          ? { ...r, email: (r as { email: string }).email.toLowerCase() }
          : r,
      );
    else out[k] = v;
  }
  return out;
}

/**
 * The key's mode (live or test) is part of the request: the same key first used with a test key and then with
 * the live key is another request (422), never a replay that would answer a live send with a test send.
 */
function startFingerprint(method: string, path: string, mode: string): Hash {
  return createHash("sha256")
    .update(method.toUpperCase())
    .update("\n")
    .update(path)
    .update("\n")
    .update(mode)
    .update("\n");
}

/**
 * sha256 of method + path + key mode + canonical body (addresses compared case-insensitively): "the same
 * request" for Idempotency-Key purposes.
 */
export function requestFingerprint(method: string, path: string, mode: string, body: unknown): string {
  return startFingerprint(method, path, mode)
    .update(canonicalJson(addressesLowered(body) ?? null))
    .digest("hex");
}

/** Longest stretch of fingerprinting before other requests get the event loop back. */
const SLICE_MS = 10;

/**
 * `requestFingerprint`, yielding to the event loop every few milliseconds: canonicalising a 12,500-recipient
 * batch takes 30 ms and more under load, on top of parsing the body in the same tick, which stalled every other
 * request of the process (health checks included) for that long.
 */
export async function requestFingerprintAsync(
  method: string,
  path: string,
  mode: string,
  body: unknown,
): Promise<string> {
  const hash = startFingerprint(method, path, mode);
  let pending = ""; // pieces are tiny: hashed in ~64 kB runs, not one native call each
  let sliceStart = performance.now();
  for (const piece of canonicalPieces(addressesLowered(body) ?? null)) {
    pending += piece;
    if (pending.length < 65_536) continue;
    hash.update(pending);
    pending = "";
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise(setImmediate);
      sliceStart = performance.now();
    }
  }
  return hash.update(pending).digest("hex");
}
