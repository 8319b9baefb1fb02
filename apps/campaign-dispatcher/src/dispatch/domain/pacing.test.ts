import { batchFinished, pace, pacedClock, type PacingInput, totalBatches } from "./pacing";

const H = 1000; // an hour lasts a second here
const base: PacingInput = {
  now: 1_000_000,
  total: 100,
  dispatched: 0,
  batchSize: null,
  batchIntervalHours: null,
  currentBatch: 0,
  sendOverHours: null,
  startedAt: null,
  lastDispatchAt: null,
  hourMs: H,
  tickMs: 500,
};

describe("pace", () => {
  it("without pacing owes every remaining recipient", () => {
    expect(pace({ ...base, dispatched: 40 })).toEqual({ budget: 60, currentBatch: 0, wakeAt: null });
  });

  it("batch mode starts batch 1, finishes a batch cut short by the cycle, then starts the next", () => {
    const p = { ...base, batchSize: 30, batchIntervalHours: 2 };
    expect(pace(p)).toEqual({ budget: 30, currentBatch: 1, wakeAt: null });
    // 20 of batch 1 went (a cycle's cap): the other 10 of it, same batch
    expect(pace({ ...p, dispatched: 20, currentBatch: 1 })).toEqual({
      budget: 10,
      currentBatch: 1,
      wakeAt: null,
    });
    // batch 1 done (its interval was waited for before this cycle): batch 2
    expect(pace({ ...p, dispatched: 30, currentBatch: 1 })).toEqual({
      budget: 30,
      currentBatch: 2,
      wakeAt: null,
    });
    // the last batch holds what is left
    expect(pace({ ...p, dispatched: 90, currentBatch: 3 })).toEqual({
      budget: 10,
      currentBatch: 4,
      wakeAt: null,
    });
    expect(
      batchFinished(
        { ...p, dispatched: 20, currentBatch: 1 },
        pace({ ...p, dispatched: 20, currentBatch: 1 }),
        10,
      ),
    ).toBe(true);
    expect(batchFinished({ ...p, dispatched: 0 }, pace(p), 29)).toBe(false);
    expect(totalBatches(100, 30)).toBe(4);
    expect(totalBatches(100, null)).toBe(0);
  });

  it("send_over_hours spreads what is left over what remains, from the last cycle", () => {
    // 100 over 10 s, started now, last cycle 1 s ago: 10 owed
    const p = { ...base, sendOverHours: 10, startedAt: base.now - 1000, lastDispatchAt: base.now - 1000 };
    expect(pace(p).budget).toBe(10);
    // half the time gone, nothing sent (paused): the rest spread over the 5 s left, no burst of 50
    const late = { ...p, startedAt: base.now - 5000, lastDispatchAt: base.now - 5000 };
    const owed = pace(late).budget;
    expect(owed).toBeLessThanOrEqual(Math.ceil((100 * 2 * base.tickMs) / 5000) + 1);
    expect(owed).toBeGreaterThan(0);
    // past the deadline: everything left
    expect(pace({ ...p, startedAt: base.now - 20_000 }).budget).toBe(100);
  });

  it("send_over_hours wakes when the next recipient is owed, and a capped cycle keeps the rest owed", () => {
    // 10 over 100 s: one every 10 s; 1 s after the last cycle nothing is owed yet
    const p = {
      ...base,
      total: 10,
      sendOverHours: 100,
      startedAt: base.now - 1000,
      lastDispatchAt: base.now - 1000,
    };
    const r = pace(p);
    expect(r.budget).toBe(0);
    expect(r.wakeAt).toBeGreaterThan(base.now);
    expect(r.wakeAt).toBeLessThanOrEqual(base.now - 1000 + 10_000);
    // 10 owed, 4 sent: the clock moves on by 4 recipients' worth, not to now
    const q = { ...base, sendOverHours: 10, startedAt: base.now - 1000, lastDispatchAt: base.now - 1000 };
    expect(pace(q).budget).toBe(10);
    const clock = pacedClock(q, 4);
    expect(clock).toBeLessThan(base.now);
    expect(pace({ ...q, dispatched: 4, lastDispatchAt: clock }).budget).toBe(6);
  });
});
