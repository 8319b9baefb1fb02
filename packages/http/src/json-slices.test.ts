import { parseJsonInSlices, PARSE_SLICE_CHARS } from "./json-slices";

/** What JSON.parse gives: the value, or the error's class. */
function reference(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: (err as Error).constructor.name };
  }
}

async function sliced(text: string): Promise<{ value: unknown; turns: number } | { error: string }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await parseJsonInSlices(text);
    return { value, turns };
  } catch (err) {
    return { error: (err as Error).constructor.name };
  } finally {
    done = true;
  }
}

/** Recipients whose strings hold every character the scanner must not cut at: quotes, commas, brackets, escapes. */
const tricky = (i: number) => ({
  email: `r${i}@x.test`,
  data: {
    name: `A "quoted", [bracketed] {braced} name \\ ${i}`,
    list: [i, [i, { deep: "]}," }], '\\"', "\u00e9\ud83d\ude00"],
    empty: {},
    none: [],
  },
});
const batch = (n: number, extra = "") =>
  `{"sender":"a@b.test",${extra}"recipients":${JSON.stringify(Array.from({ length: n }, (_, i) => tricky(i)))},"subject":"s"}`;

describe("parseJsonInSlices", () => {
  it("gives JSON.parse's value for a large batch, over several event-loop turns", async () => {
    const text = batch(12_500);
    expect(text.length).toBeGreaterThan(10 * PARSE_SLICE_CHARS);
    const out = await sliced(text);
    expect(out).toEqual({ value: JSON.parse(text), turns: expect.any(Number) });
    // the scan and the pieces each took a turn of their own
    expect((out as { turns: number }).turns).toBeGreaterThanOrEqual(10);
  });

  it("gives JSON.parse's value where it cannot cut: small texts, arrays, repeated and __proto__ keys", async () => {
    const big = JSON.stringify(Array.from({ length: 5_000 }, (_, i) => tricky(i)));
    const cases = [
      '{"a":[1,2,3]}',
      big,
      `{"recipients":${big},"recipients":[]}`,
      `{"recipients":[],"recipients":${big}}`,
      `{"recipients":${big},"other":${big}}`,
      `{"__proto__":${big}}`,
      `{"nested":{"recipients":${big}}}`,
      `  \n{"recipients" : ${big.replace(/,/g, " ,\n ")} }  `,
    ];
    for (const text of cases) {
      const want = reference(text);
      const got = await sliced(text);
      expect("value" in got ? { value: got.value } : got).toEqual(want);
    }
    const proto = (await parseJsonInSlices(`{"__proto__":${big}}`)) as object;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
  });

  it("throws JSON.parse's error for every broken large text", async () => {
    const text = batch(3_000);
    const broken = [
      text.slice(0, -1),
      `${text}x`,
      text.replace('"recipients":[', '"recipients":[,'),
      text.replace(/\]\s*,"subject"/, ',],"subject"'),
      text.replace("},{", "}{"),
      text.replace("},{", "},,{"),
      text.replace('"r1@x.test"', '"r1@x.test'),
      text.replace('"recipients":', '"recipients"'),
      text.replace('"recipients":[', '"recipients":[\u0001'),
      text.slice(0, text.length / 2),
      `[${text}`,
    ];
    for (const t of broken) {
      expect(reference(t)).toEqual({ error: "SyntaxError" });
      expect(await sliced(t)).toEqual({ error: "SyntaxError" });
    }
  });
});
