import * as chrono from "chrono-node";
import { formatLocal, offsetAt, parseZone, wallClockToInstant, type Zone, ZoneError } from "./timezone";

export interface ScheduleInput {
  scheduledAt: string;
  timezone?: string | number | null;
  /** The project's default_timezone; UTC when unset (spec 4.5). */
  defaultTimezone?: string | null;
  now: Date;
}

export interface Schedule {
  instant: Date;
  /** The zone used, as echoed in the response (`timezone`). */
  timezone: string;
  /** `YYYY-MM-DD HH:mm` in that zone. */
  local: string;
}

/** A 400 naming the field that could not be read. */
export class ScheduleError extends Error {
  constructor(
    readonly field: "scheduled_at" | "timezone",
    message: string,
  ) {
    super(message);
  }
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Reads `scheduled_at` + `timezone` (spec 4.5): ISO 8601 with `Z` or an offset is absolute; an ISO timestamp
 * without an offset and English phrases ("tomorrow at 9am", "in 3 hours", "next monday at 14:30", "friday 5pm")
 * are read in the zone. Relative durations ("in 3 hours") are exact from now; calendar phrases keep their
 * wall-clock time in the zone, so a date past a daylight-saving change still lands on the stated local time.
 */
export function parseSchedule(input: ScheduleInput): Schedule {
  let zone: Zone;
  try {
    zone = parseZone(input.timezone ?? input.defaultTimezone ?? "UTC");
  } catch (err) {
    if (err instanceof ZoneError) throw new ScheduleError("timezone", err.message);
    throw err;
  }
  const text = input.scheduledAt.trim();
  if (!text) throw new ScheduleError("scheduled_at", "Invalid scheduled_at: empty value");
  // The natural-language parser's time grows with the text (seconds for a few hundred KB, on the event loop).
  if (text.length > MAX_TEXT)
    throw new ScheduleError("scheduled_at", `Invalid scheduled_at: longer than ${MAX_TEXT} characters`);
  const nowMs = input.now.getTime();
  const instant = readInstant(text, zone, nowMs);
  if (instant === null || Number.isNaN(instant)) {
    throw new ScheduleError("scheduled_at", `Invalid scheduled_at: could not understand "${text}"`);
  }
  if (instant <= nowMs) {
    throw new ScheduleError(
      "scheduled_at",
      `scheduled_at is in the past: "${text}" resolves to ${new Date(instant).toISOString()} (${formatLocal(zone, instant)} ${zone.label})`,
    );
  }
  // In the zone too: 9999-12-31T23:00Z is already year 10000 in Tokyo.
  if (instant > LATEST || !/^\d{4}-/.test(formatLocal(zone, instant))) {
    throw new ScheduleError(
      "scheduled_at",
      `scheduled_at is too far ahead: "${text}" is after 9999-12-31 (dates are written YYYY-MM-DD)`,
    );
  }
  return { instant: new Date(instant), timezone: zone.label, local: formatLocal(zone, instant) };
}

const MAX_TEXT = 200;
/** The last moment a four-digit year can write (scheduled_for and scheduled_for_local are YYYY-MM-DD…). */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);
/** Words that point back in time: chrono's forwardDate would otherwise turn "last friday" into the next one. */
const BACKWARD = /\b(?:last|past|previous|ago|yesterday)\b/i;

/** The fields name a real moment (no 30 February, hour 25 or minute 61, which Date.UTC would roll over). */
function realMoment(f: {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}) {
  const d = new Date(Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second));
  return (
    d.getUTCFullYear() === f.year &&
    d.getUTCMonth() === f.month - 1 &&
    d.getUTCDate() === f.day &&
    d.getUTCHours() === f.hour &&
    d.getUTCMinutes() === f.minute &&
    d.getUTCSeconds() === f.second
  );
}

function readInstant(text: string, zone: Zone, nowMs: number): number | null {
  const iso = ISO.exec(text);
  if (iso) {
    const [, y, mo, d, h, mi, s, frac, off] = iso;
    const fields = {
      year: +y!,
      month: +mo!,
      day: +d!,
      hour: +(h ?? 0),
      minute: +(mi ?? 0),
      second: +(s ?? 0),
    };
    if (!realMoment(fields)) return null;
    const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
    if (off) {
      // Z, ±hh, ±hhmm or ±hh:mm (ISO 8601 allows all three forms of an offset)
      const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(off);
      const offsetMin = m ? (m[1] === "-" ? -1 : 1) * (+m[2]! * 60 + +(m[3] ?? 0)) : 0;
      if (m && (+m[2]! > 23 || +(m[3] ?? 0) > 59)) return null;
      return (
        Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second, ms) -
        offsetMin * 60_000
      );
    }
    // a fraction of a second counts without an offset too (the zone's wall clock)
    return wallClockToInstant(zone, fields) + ms;
  }
  const results = chrono.parse(
    text,
    { instant: new Date(nowMs), timezone: offsetAt(zone, nowMs) },
    { forwardDate: !BACKWARD.test(text) },
  );
  const r = results[0];
  // The phrase must be understood as a whole: "not tomorrow" must not become "tomorrow".
  if (!r || results.length !== 1 || r.index !== 0 || r.text.length < text.replace(/[.!\s]+$/, "").length)
    return null;
  const c = r.start;
  if (c.tags().has("result/relativeDateAndTime") || c.isCertain("timezoneOffset")) return c.date().getTime();
  return wallClockToInstant(zone, {
    year: c.get("year")!,
    month: c.get("month")!,
    day: c.get("day")!,
    hour: c.get("hour")!,
    minute: c.get("minute")!,
    second: c.get("second") ?? 0,
  });
}
