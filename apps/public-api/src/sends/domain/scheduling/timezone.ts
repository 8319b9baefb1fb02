import { tzOffset } from "@date-fns/tz";

/**
 * A send's time zone (spec 4.5): an IANA name, an offset string (`UTC-3`, `UTC+5:30`, `+09:00`, `-03:00`) or a
 * number of hours (integer or decimal, may be negative). IANA zones follow daylight saving; offsets are fixed.
 */
export type Zone =
  { kind: "iana"; name: string; label: string } | { kind: "fixed"; offsetMinutes: number; label: string };

export class ZoneError extends Error {}

/**
 * An IANA zone name with its usual capitals ("europe/berlin" → "Europe/Berlin"), or null when it is not one. Only
 * the case is corrected: ICU resolves some current names to older aliases (Asia/Kolkata → Asia/Calcutta), and
 * the name the client chose is kept.
 */
export function canonicalIanaZone(name: string): string | null {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

const OFFSET = /^(?:(?:UTC|GMT)\s*)?([+-])(\d{1,2})(?::?(\d{2}))?$/i;

function hoursLabel(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const hours = Math.abs(minutes) / 60;
  return `UTC${sign}${Number.isInteger(hours) ? hours : Number(hours.toFixed(2))}`;
}

export function parseZone(input: string | number): Zone {
  if (typeof input === "number") {
    if (!Number.isFinite(input) || Math.abs(input) > 14)
      throw new ZoneError(`Invalid timezone: ${input} is not an offset in hours between -14 and 14`);
    const offsetMinutes = Math.round(input * 60);
    // Spec 4.5: a numeric offset is echoed as UTC<sign><hours>.
    return { kind: "fixed", offsetMinutes, label: hoursLabel(offsetMinutes) };
  }
  const text = input.trim();
  if (/^(UTC|GMT|Z)$/i.test(text)) return { kind: "fixed", offsetMinutes: 0, label: "UTC" };
  // A number of hours sent as a string ("-3", "5.5") is that number, echoed the same way (UTC-3).
  if (/^[+-]?\d{1,2}(\.\d+)?$/.test(text)) return parseZone(Number(text));
  const m = OFFSET.exec(text);
  if (m) {
    const hours = Number(m[2]);
    const minutes = Number(m[3] ?? 0);
    // The same range as a number of hours: no zone is further than 14 hours from UTC.
    if (minutes >= 60 || hours * 60 + minutes > 14 * 60) throw new ZoneError(`Invalid timezone: ${text}`);
    const offsetMinutes = (m[1] === "-" ? -1 : 1) * (hours * 60 + minutes);
    return { kind: "fixed", offsetMinutes, label: text };
  }
  const iana = canonicalIanaZone(text);
  if (iana) return { kind: "iana", name: iana, label: iana };
  throw new ZoneError(
    `Invalid timezone: "${text}" is not an IANA time zone, an offset like UTC+5:30 or +09:00, or a number of hours`,
  );
}

/** Offset of the zone from UTC at an instant, in minutes. */
export function offsetAt(zone: Zone, instantMs: number): number {
  return zone.kind === "fixed" ? zone.offsetMinutes : tzOffset(zone.name, new Date(instantMs));
}

export interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

/**
 * The instant a wall-clock time denotes in a zone, deterministic across daylight-saving changes:
 * - in a gap (spring forward, e.g. 02:30 that never happens) the time moves forward by the gap (→ 03:30),
 *   i.e. it is read with the offset in force before the change;
 * - in an overlap (fall back, e.g. 01:30 that happens twice) the earlier occurrence is used.
 */
export function wallClockToInstant(zone: Zone, w: WallClock): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second ?? 0);
  if (zone.kind === "fixed") return asUtc - zone.offsetMinutes * 60_000;
  const day = 24 * 3600_000;
  const before = offsetAt(zone, asUtc - day);
  const after = offsetAt(zone, asUtc + day);
  const candidates = [...new Set([before, after])]
    .map((off) => asUtc - off * 60_000)
    .filter((t) => offsetAt(zone, t) * 60_000 === asUtc - t)
    .sort((a, b) => a - b);
  if (candidates.length) return candidates[0]!;
  return asUtc - before * 60_000; // gap
}

/** `YYYY-MM-DD HH:mm` of an instant in a zone. */
export function formatLocal(zone: Zone, instantMs: number): string {
  const d = new Date(instantMs + offsetAt(zone, instantMs) * 60_000);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
}
