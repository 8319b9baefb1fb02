import { BinaryArrayWriter, OID, timeOrderedUuidBytes } from "./binary-array";
import { timeOrderedUuid } from "../time-ordered-uuid";

const hex = (b: Buffer) => b.toString("hex");
const uuidText = (b: Buffer) =>
  `${hex(b.subarray(0, 4))}-${hex(b.subarray(4, 6))}-${hex(b.subarray(6, 8))}-${hex(b.subarray(8, 10))}-${hex(b.subarray(10, 16))}`;

describe("BinaryArrayWriter (array_recv's format)", () => {
  it("writes a one-dimensional array: header, then each element's length and bytes; NULL as -1", () => {
    const w = new BinaryArrayWriter(OID.text, 0);
    w.text("é");
    w.text(null);
    w.text("ab");
    const b = w.finish();
    expect([0, 4, 8, 12, 16].map((o) => b.readInt32BE(o))).toEqual([1, 1, OID.text, 3, 1]);
    expect(b.readInt32BE(20)).toBe(2); // "é" is two bytes in UTF-8
    expect(b.subarray(24, 26).toString("utf8")).toBe("é");
    expect(b.readInt32BE(26)).toBe(-1);
    expect(b.readInt32BE(30)).toBe(2);
    expect(b.subarray(34).toString("utf8")).toBe("ab");
  });

  it("grows past its first capacity; an empty array has no dimension", () => {
    const w = new BinaryArrayWriter(OID.jsonb, 0);
    const json = JSON.stringify({ note: "x".repeat(5000) });
    w.jsonb(json);
    const b = w.finish();
    expect(b.readInt32BE(20)).toBe(json.length + 1);
    expect(b[24]).toBe(1); // jsonb's format version
    expect(b.subarray(25).toString("utf8")).toBe(json);
    expect(hex(new BinaryArrayWriter(OID.int4).finish())).toBe("00000000" + "00000000" + "00000017");
  });
});

describe("timeOrderedUuidBytes", () => {
  it("gives version-7 UUIDs with the millisecond prefix timeOrderedUuid gives", () => {
    const now = Date.UTC(2026, 10, 25, 9, 30);
    const ids = timeOrderedUuidBytes(3, now);
    const texts = [0, 1, 2].map((i) => uuidText(ids.subarray(i * 16, i * 16 + 16)));
    for (const t of texts) {
      expect(t).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(t.slice(0, 15)).toBe(timeOrderedUuid(now).slice(0, 15));
    }
    expect(new Set(texts).size).toBe(3);
  });
});
