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
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

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
  return { instant: new Date(instant), timezone: zone.label, local: formatLocal(zone, instant) };
}

function readInstant(text: string, zone: Zone, nowMs: number): number | null {
  const iso = ISO.exec(text);
  if (iso) {
    const [, y, mo, d, h, mi, s, off] = iso;
    if (off) return Date.parse(text.replace(" ", "T"));
    return wallClockToInstant(zone, {
      year: +y!,
      month: +mo!,
      day: +d!,
      hour: +(h ?? 0),
      minute: +(mi ?? 0),
      second: +(s ?? 0),
    });
  }
  const results = chrono.parse(
    text,
    { instant: new Date(nowMs), timezone: offsetAt(zone, nowMs) },
    { forwardDate: true },
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
