import { dayNumber, monthlyLimit, providerDailyLimit, warmupLimit } from "./limits";

describe("limits", () => {
  const H = 3_600_000;
  it("the warm-up ramp: day 1 and 2 capped, none after; used up → rate limited until the next day", () => {
    const today = dayNumber(Date.UTC(2026, 10, 25, 15), H);
    expect(warmupLimit([50_000, 75_000], null, today, 0, "d.example", H)).toEqual({ left: 50_000 });
    expect(warmupLimit([50_000, 75_000], today - 1, today, 70_000, "d.example", H)).toEqual({ left: 5_000 });
    expect(warmupLimit([50_000, 75_000], today - 2, today, 999_999, "d.example", H)).toEqual({
      left: Infinity,
    });
    const used = warmupLimit([50_000, 75_000], today, today, 50_000, "d.example", H);
    expect(used.left).toBe(0);
    expect(used.blocked).toMatchObject({ cause: "warmup" });
    expect(used.blocked!.until.toISOString()).toBe("2026-11-26T00:00:00.000Z");
    expect(warmupLimit([], null, today, 1e9, "d.example", H)).toEqual({ left: Infinity });
  });

  it("the monthly quota reopens on the first of next month (UTC)", () => {
    expect(monthlyLimit(10, new Date())).toEqual({ left: 10 });
    const m = monthlyLimit(0, new Date("2026-12-31T23:00:00Z"));
    expect(m.blocked).toMatchObject({ cause: "monthly_quota", until: new Date("2027-01-01T00:00:00Z") });
  });

  it("the provider's 24-hour quota counts what it has not seen yet", () => {
    const q = { max24HourSend: 100, sentLast24Hours: 80, handedOverSince: 5 };
    expect(providerDailyLimit(q, 0, 0, 1000).left).toBe(15);
    expect(providerDailyLimit(q, 12, 0, 1000).left).toBe(8);
    const b = providerDailyLimit({ ...q, handedOverSince: 20 }, 0, 5_000, 1000);
    expect(b.left).toBe(0);
    expect(b.blocked).toMatchObject({ cause: "provider_daily_quota", until: new Date(6_000) });
  });
});
