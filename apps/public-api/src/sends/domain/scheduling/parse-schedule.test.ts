import { parseSchedule, ScheduleError } from "./parse-schedule";

// Saturday 2026-03-07 15:00 UTC. New York switches EST (-5) → EDT (-4) at 2026-03-08 02:00 local.
const now = new Date("2026-03-07T15:00:00Z");

describe("parseSchedule phrase table (phrases × zones × offsets × a DST change)", () => {
  it.each([
    // phrase, timezone, expected instant, expected local, echoed zone
    [
      "tomorrow at 9am",
      "America/New_York",
      "2026-03-08T13:00:00.000Z",
      "2026-03-08 09:00",
      "America/New_York",
    ],
    ["in 3 hours", "America/New_York", "2026-03-07T18:00:00.000Z", "2026-03-07 13:00", "America/New_York"],
    [
      "next monday at 14:30",
      "America/New_York",
      "2026-03-09T18:30:00.000Z",
      "2026-03-09 14:30",
      "America/New_York",
    ],
    ["friday 5pm", "America/New_York", "2026-03-13T21:00:00.000Z", "2026-03-13 17:00", "America/New_York"],
    ["tomorrow at 9am", "Europe/London", "2026-03-08T09:00:00.000Z", "2026-03-08 09:00", "Europe/London"],
    ["tomorrow at 9am", "Asia/Kolkata", "2026-03-08T03:30:00.000Z", "2026-03-08 09:00", "Asia/Kolkata"],
    ["tomorrow at 9am", "UTC+5:30", "2026-03-08T03:30:00.000Z", "2026-03-08 09:00", "UTC+5:30"],
    ["tomorrow at 9am", 5.5, "2026-03-08T03:30:00.000Z", "2026-03-08 09:00", "UTC+5.5"],
    ["tomorrow at 9am", -3, "2026-03-08T12:00:00.000Z", "2026-03-08 09:00", "UTC-3"],
    // a number of hours written as a string is echoed like the number
    ["tomorrow at 9am", "-3", "2026-03-08T12:00:00.000Z", "2026-03-08 09:00", "UTC-3"],
    ["tomorrow at 9am", "5.5", "2026-03-08T03:30:00.000Z", "2026-03-08 09:00", "UTC+5.5"],
    // In UTC+14 it is already Sunday 05:00.
    ["tomorrow at 9am", "UTC+14:00", "2026-03-08T19:00:00.000Z", "2026-03-09 09:00", "UTC+14:00"],
    ["tomorrow at 9am", "UTC-3", "2026-03-08T12:00:00.000Z", "2026-03-08 09:00", "UTC-3"],
    ["tomorrow at 9am", "-03:00", "2026-03-08T12:00:00.000Z", "2026-03-08 09:00", "-03:00"],
    // In +09:00 it is already Sunday 00:00, so "tomorrow" is Monday.
    ["tomorrow at 9am", "+09:00", "2026-03-09T00:00:00.000Z", "2026-03-09 09:00", "+09:00"],
    ["in 3 hours", 9, "2026-03-07T18:00:00.000Z", "2026-03-08 03:00", "UTC+9"],
    // Offset-less timestamps are read in the zone; DST gap moves forward, overlap takes the earlier instant.
    [
      "2026-03-10T10:00",
      "America/New_York",
      "2026-03-10T14:00:00.000Z",
      "2026-03-10 10:00",
      "America/New_York",
    ],
    [
      "2026-03-08 02:30",
      "America/New_York",
      "2026-03-08T07:30:00.000Z",
      "2026-03-08 03:30",
      "America/New_York",
    ],
    [
      "2026-11-01 01:30",
      "America/New_York",
      "2026-11-01T05:30:00.000Z",
      "2026-11-01 01:30",
      "America/New_York",
    ],
    // Absolute timestamps ignore the zone for the instant but are shown in it.
    [
      "2026-03-10T10:00:00Z",
      "America/New_York",
      "2026-03-10T10:00:00.000Z",
      "2026-03-10 06:00",
      "America/New_York",
    ],
    ["2026-03-10T10:00:00+02:00", "UTC", "2026-03-10T08:00:00.000Z", "2026-03-10 08:00", "UTC"],
    // every ISO 8601 offset form: ±hh, ±hhmm, ±hh:mm; fractions of a second
    ["2026-03-10T10:00:00+05", "UTC", "2026-03-10T05:00:00.000Z", "2026-03-10 05:00", "UTC"],
    ["2026-03-10T10:00:00-0530", "UTC", "2026-03-10T15:30:00.000Z", "2026-03-10 15:30", "UTC"],
    ["2026-03-10T10:00:00.250Z", "UTC", "2026-03-10T10:00:00.250Z", "2026-03-10 10:00", "UTC"],
    // and without an offset, in the zone's wall clock
    ["2026-03-10T10:00:00.999", "Asia/Tokyo", "2026-03-10T01:00:00.999Z", "2026-03-10 10:00", "Asia/Tokyo"],
  ])("%s in %s", (phrase, tz, instant, local, label) => {
    const s = parseSchedule({ scheduledAt: phrase, timezone: tz, now });
    expect(s.instant.toISOString()).toBe(instant);
    expect(s.local).toBe(local);
    expect(s.timezone).toBe(label);
  });

  it("uses the project's default_timezone, else UTC", () => {
    expect(
      parseSchedule({
        scheduledAt: "tomorrow at 9am",
        defaultTimezone: "Europe/Berlin",
        now,
      }).instant.toISOString(),
    ).toBe("2026-03-08T08:00:00.000Z");
    const utc = parseSchedule({ scheduledAt: "tomorrow at 9am", now });
    expect(utc.instant.toISOString()).toBe("2026-03-08T09:00:00.000Z");
    expect(utc.timezone).toBe("UTC");
  });

  it.each(["2026-03-07T14:00:00Z", "yesterday at 9am", "2020-01-01", "last friday", "past friday"])(
    "refuses a past time: %s",
    (phrase) => {
      expect(() => parseSchedule({ scheduledAt: phrase, now })).toThrow(/past/);
    },
  );

  it("refuses a time after year 9999 and a text longer than 200 characters", () => {
    expect(() => parseSchedule({ scheduledAt: "in 270000 years", now })).toThrow(/too far ahead/);
    expect(() => parseSchedule({ scheduledAt: "in 10000 years", now })).toThrow(/too far ahead/);
    expect(parseSchedule({ scheduledAt: "9999-12-31T23:00:00Z", now }).local).toBe("9999-12-31 23:00");
    // the same instant is already year 10000 in Tokyo
    expect(() => parseSchedule({ scheduledAt: "9999-12-31T23:00:00Z", timezone: "Asia/Tokyo", now })).toThrow(
      /too far ahead/,
    );
    expect(() => parseSchedule({ scheduledAt: "tomorrow ".repeat(30), now })).toThrow(/longer than 200/);
  });

  it.each([
    ["blah", "UTC", "scheduled_at"],
    ["not tomorrow", "UTC", "scheduled_at"],
    // impossible calendar dates are refused, not rolled over into the next month
    ["2030-02-30T10:00:00Z", "UTC", "scheduled_at"],
    ["2027-02-29T10:00", "UTC", "scheduled_at"],
    ["2027-04-31T25:00:00", "UTC", "scheduled_at"],
    ["2027-01-01T10:61:00Z", "UTC", "scheduled_at"],
    ["2027-01-01T10:00:00+24:00", "UTC", "scheduled_at"],
    ["tomorrow at 9am", "Mars/Olympus", "timezone"],
    ["tomorrow at 9am", "UTC+25", "timezone"],
    // no zone is further than 14 hours from UTC, whichever way the offset is written
    ["tomorrow at 9am", "UTC+14:30", "timezone"],
    ["tomorrow at 9am", "-14:01", "timezone"],
    ["tomorrow at 9am", 14.5, "timezone"],
    ["tomorrow at 9am", 99, "timezone"],
  ])("names the field it cannot read: %s / %s", (phrase, tz, field) => {
    let err: unknown;
    try {
      parseSchedule({ scheduledAt: phrase, timezone: tz, now });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScheduleError);
    expect((err as ScheduleError).field).toBe(field);
    expect((err as Error).message).toContain(field);
  });
});
