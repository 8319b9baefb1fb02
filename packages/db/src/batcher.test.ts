import { createBatcher } from "./batcher";

const tick = () => new Promise((r) => setImmediate(r));

describe("batcher", () => {
  it("runs the first item at once, gathers the ones that arrive meanwhile, and answers each caller", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const b = createBatcher<number, string>({
      maxInFlight: 1,
      run: async (items) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        return items.map((i) => `r${i}`);
      },
    });
    const answers = [1, 2, 3, 4].map((i) => b.submit(i));
    await tick();
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all(answers)).toEqual(["r1", "r2", "r3", "r4"]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it("with gatherTurn, the items of one event-loop turn go together, even the first", async () => {
    const batches: number[][] = [];
    const b = createBatcher<number, number>({
      gatherTurn: true,
      run: async (items) => {
        batches.push(items);
        await tick();
        return items;
      },
    });
    const first = [1, 2, 3].map((i) => b.submit(i));
    await Promise.resolve(); // a later microtask of the same turn still joins
    const late = b.submit(4);
    expect(batches).toEqual([]);
    await Promise.all([...first, late]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
    // a new turn starts a new batch
    await Promise.all([b.submit(5), b.submit(6)]);
    expect(batches).toEqual([
      [1, 2, 3, 4],
      [5, 6],
    ]);
  });

  it("caps a batch at maxBatch", async () => {
    const batches: number[][] = [];
    const b = createBatcher<number, number>({
      maxInFlight: 1,
      maxBatch: 2,
      run: async (items) => {
        batches.push(items);
        await tick();
        return items;
      },
    });
    await Promise.all([1, 2, 3, 4, 5].map((i) => b.submit(i)));
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("runs a failed batch again item by item, so only the item that fails is refused", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const b = createBatcher<number, number>({
      maxInFlight: 1,
      run: async (items) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        if (items.includes(3)) throw new Error("poison");
        return items.map((i) => i * 10);
      },
    });
    const answers = [1, 2, 3, 4].map((i) => b.submit(i).catch((e: Error) => e.message));
    await tick();
    release();
    expect(await Promise.all(answers)).toEqual([10, 20, "poison", 40]);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it("refuses every item when the batch gives the wrong number of results", async () => {
    const b = createBatcher<number, number>({ run: async () => [] });
    await expect(b.submit(1)).rejects.toThrow("batch of 1 gave 0 results");
  });
});
