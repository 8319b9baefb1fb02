import { timeOrderedUuid, timeOrderedUuids } from "./time-ordered-uuid";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("a version-7 UUID carrying the millisecond it was drawn in", () => {
  const ms = Date.UTC(2026, 10, 23, 4, 5, 6, 789);
  const id = timeOrderedUuid(ms);
  expect(id).toMatch(UUID_V7);
  expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
});

test("ids of one batch share their time prefix, are unique, and sort after earlier ones", () => {
  const ids = Array.from({ length: 5000 }, () => timeOrderedUuid(1_800_000_000_000));
  expect(new Set(ids).size).toBe(5000);
  expect(new Set(ids.map((id) => id.slice(0, 15))).size).toBe(1);
  expect(timeOrderedUuid(1_800_000_000_001) > ids.reduce((a, b) => (a > b ? a : b))).toBe(true);
});

test("ids drawn together are version-7 UUIDs in strictly increasing order", () => {
  const ids = timeOrderedUuids(50, 1_800_000_000_000);
  expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(50);
});
