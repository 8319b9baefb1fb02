import { SendRateTracker } from "./send-rate";

describe("SendRateTracker", () => {
  it("allows maxRate sends in any 1-second window and counts the rest as throttled", () => {
    const t = new SendRateTracker();
    const accepted = [0, 100, 200, 999, 1000, 1100, 1150, 1999, 2000].map((ms) =>
      t.tryAccept(3, 10_000 + ms),
    );
    // 0,100,200 fill the window; 999 is throttled; 1000 pushes out 0 and 1100 pushes out 100; 1150 is throttled
    // (200,1000,1100 within 1 s); by 1999 the 200 has left the window, by 2000 the 1000 has.
    expect(accepted).toEqual([true, true, true, false, true, true, false, true, true]);
    expect(t.accepted).toBe(7);
    expect(t.throttled).toBe(2);
    expect(t.maxPerSecond).toBe(3);
  });

  it("is unlimited with a null rate and stays cheap for many sends", () => {
    const t = new SendRateTracker();
    const start = Date.now();
    for (let i = 0; i < 100_000; i++) t.tryAccept(null, 1_000_000 + i);
    expect(t.accepted).toBe(100_000);
    expect(t.maxPerSecond).toBe(1000);
    expect(Date.now() - start).toBeLessThan(1000);
  });
});
