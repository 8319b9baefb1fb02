import { guardVerdict } from "./reputation-guard";

const cfg = { minSends: 500, maxHardBounceRate: 0.05, maxComplaintRate: 0.001 };

describe("the reputation guard", () => {
  it("waits for 500 sends, then pauses past 5% hard bounces or 0.1% complaints", () => {
    expect(guardVerdict({ sent: 499, hardBounced: 400, complained: 10 }, null, cfg)).toBeNull();
    expect(guardVerdict({ sent: 1000, hardBounced: 50, complained: 1 }, null, cfg)).toBeNull();
    expect(guardVerdict({ sent: 1000, hardBounced: 51, complained: 0 }, null, cfg)).toMatchObject({
      cause: "reputation_bounces",
      reason: "hard-bounce rate 5.1% (51 of 1000 sends) passed 5.0%",
    });
    expect(guardVerdict({ sent: 1000, hardBounced: 0, complained: 2 }, null, cfg)).toMatchObject({
      cause: "reputation_complaints",
      reason: "complaint rate 0.20% (2 of 1000 sends) passed 0.10%",
    });
  });

  it("after a resume past it, judges only the sends since", () => {
    const baseline = { sent: 1000, hardBounced: 60, complained: 0 };
    expect(guardVerdict({ sent: 1400, hardBounced: 61, complained: 0 }, baseline, cfg)).toBeNull();
    expect(guardVerdict({ sent: 1600, hardBounced: 91, complained: 0 }, baseline, cfg)?.cause).toBe(
      "reputation_bounces",
    );
  });
});
