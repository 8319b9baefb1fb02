import { createGroupWriter } from "./group-writer";

const logger = { error: () => undefined } as never;
const tick = () => new Promise((r) => setImmediate(r));

describe("group writer", () => {
  it("writes the first item at once and gathers the ones that arrive meanwhile into the next batch", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const w = createGroupWriter<number>({
      logger,
      maxInFlight: 1,
      write: async (b) => {
        batches.push(b);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
      },
    });
    w.add(1);
    for (let i = 2; i <= 5; i++) w.add(i);
    await tick();
    expect(batches).toEqual([[1]]);
    release();
    await w.flush();
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it("caps a batch at maxBatch and keeps arrival order", async () => {
    const batches: number[][] = [];
    const w = createGroupWriter<number>({
      logger,
      maxInFlight: 1,
      maxBatch: 2,
      write: async (b) => void batches.push(b),
    });
    for (let i = 1; i <= 5; i++) w.add(i);
    await w.flush();
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5]);
    expect(Math.max(...batches.map((b) => b.length))).toBe(2);
  });

  it("tries a failed batch again instead of losing it", async () => {
    const written: number[] = [];
    let fail = 2;
    const w = createGroupWriter<number>({
      logger,
      retryDelayMs: 10,
      write: async (b) => {
        if (fail-- > 0) throw new Error("database restarting");
        written.push(...b);
      },
    });
    w.add(1);
    w.add(2);
    await w.flush(2000);
    expect(written.sort()).toEqual([1, 2]);
  });

  it("drops past maxPending rather than growing without bound", async () => {
    const written: number[] = [];
    let release!: () => void;
    const w = createGroupWriter<number>({
      logger,
      maxInFlight: 1,
      maxPending: 2,
      write: async (b) => {
        if (!written.length) await new Promise<void>((r) => (release = r));
        written.push(...b);
      },
    });
    for (let i = 1; i <= 5; i++) w.add(i); // 1 in flight, 2 and 3 held, 4 and 5 dropped
    release();
    await w.flush();
    expect(written).toEqual([1, 2, 3]);
  });

  it("halves a batch the database refuses until the refused item is alone, drops only it, and writes the rest at once", async () => {
    const written: number[] = [];
    const errors: unknown[] = [];
    let tries = 0;
    const w = createGroupWriter<number>({
      logger: { error: (o: unknown) => void errors.push(o) } as never,
      maxInFlight: 1,
      maxBatch: 8,
      retryDelayMs: 60_000, // a refused batch must not wait for it
      refused: (err) => (err as { code?: string }).code === "22021",
      write: async (b) => {
        tries++;
        if (b.includes(5)) throw Object.assign(new Error("invalid byte sequence"), { code: "22021" });
        written.push(...b);
      },
    });
    for (let i = 1; i <= 8; i++) w.add(i);
    await w.flush(1000);
    expect(written.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 6, 7, 8]);
    expect(tries).toBeLessThanOrEqual(8); // log2(8) halvings, not one try per item
    expect(errors).toEqual([expect.objectContaining({ item: 5, refused: 1 })]);
    // later items are not held back
    w.add(9);
    await w.flush(1000);
    expect(written).toContain(9);
  });

  it("still keeps and retries a batch whose error is not a refusal (an outage)", async () => {
    const written: number[] = [];
    let fail = 2;
    const w = createGroupWriter<number>({
      logger,
      retryDelayMs: 10,
      refused: (err) => (err as { code?: string }).code === "22021",
      write: async (b) => {
        if (fail-- > 0) throw Object.assign(new Error("terminating connection"), { code: "57P01" });
        written.push(...b);
      },
    });
    w.add(1);
    w.add(2);
    await w.flush(2000);
    expect(written.sort()).toEqual([1, 2]);
  });
});
