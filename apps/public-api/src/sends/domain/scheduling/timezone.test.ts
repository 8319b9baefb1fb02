// A scheduled send's time zone (spec 4.5): the forms accepted and their echoed labels, the ones refused, and the
// instant a wall-clock time denotes across daylight-saving changes (a gap moves forward, an overlap takes the
// earlier). Pure: no clock, no I/O.
import { formatLocal, parseZone, wallClockToInstant, ZoneError } from "./timezone";

describe("parseZone", () => {
  it.each([
    ["europe/berlin", { kind: "iana", name: "Europe/Berlin", label: "Europe/Berlin" }],
    ["UTC", { kind: "fixed", offsetMinutes: 0, label: "UTC" }],
    ["UTC+5:30", { kind: "fixed", offsetMinutes: 330, label: "UTC+5:30" }],
    ["-03:00", { kind: "fixed", offsetMinutes: -180, label: "-03:00" }],
    [-3, { kind: "fixed", offsetMinutes: -180, label: "UTC-3" }],
    ["5.5", { kind: "fixed", offsetMinutes: 330, label: "UTC+5.5" }],
  ] as const)("reads %p", (input, zone) => {
    expect(parseZone(input)).toEqual(zone);
  });

  it.each([15, "UTC+14:30", "+05:75", "Mars/Olympus"])("refuses %p", (input) => {
    expect(() => parseZone(input)).toThrow(ZoneError);
  });
});

describe("wallClockToInstant", () => {
  const berlin = parseZone("Europe/Berlin");

  it("reads a fixed offset as it is", () => {
    const t = wallClockToInstant(parseZone("UTC+2"), { year: 2030, month: 6, day: 1, hour: 9, minute: 0 });
    expect(new Date(t).toISOString()).toBe("2030-06-01T07:00:00.000Z");
  });

  it("moves a time in the spring-forward gap forward by the gap", () => {
    // 2030-03-31 02:30 never happens in Berlin: clocks go from 02:00 CET to 03:00 CEST
    const t = wallClockToInstant(berlin, { year: 2030, month: 3, day: 31, hour: 2, minute: 30 });
    expect(new Date(t).toISOString()).toBe("2030-03-31T01:30:00.000Z");
    expect(formatLocal(berlin, t)).toBe("2030-03-31 03:30");
  });

  it("takes the earlier of a time that happens twice in the fall-back overlap", () => {
    // 2030-10-27 02:30 happens at 00:30Z (CEST) and 01:30Z (CET)
    const t = wallClockToInstant(berlin, { year: 2030, month: 10, day: 27, hour: 2, minute: 30 });
    expect(new Date(t).toISOString()).toBe("2030-10-27T00:30:00.000Z");
  });
});
