import { jsonArrayInSlices, SLICE } from "./slices";

test("jsonArrayInSlices writes JSON.stringify's text, at every size around a slice", async () => {
  const item = (i: number) =>
    i % 3 === 0
      ? { email: `a${i}@b.example`, activity_id: null, skipped: true, suppression_reason: "bounce" }
      : { email: `ü\n"${i}"@b.example`, data: { n: i, nested: [i, null] } };
  for (const n of [0, 1, SLICE - 1, SLICE, SLICE + 1, 2 * SLICE, 6 * SLICE + 250]) {
    const values = Array.from({ length: n }, (_, i) => item(i));
    expect(await jsonArrayInSlices(values)).toBe(JSON.stringify(values));
  }
});

test("jsonArrayInSlices gives the event loop back between slices", async () => {
  const values = Array.from({ length: 6 * SLICE }, (_, i) => ({ i }));
  let immediates = 0;
  let done = false;
  const count = () => {
    immediates++;
    if (!done) setImmediate(count);
  };
  setImmediate(count);
  await jsonArrayInSlices(values);
  done = true;
  // Six slices: the immediates queued meanwhile ran between them rather than after the whole array.
  expect(immediates).toBeGreaterThanOrEqual(5);
});
