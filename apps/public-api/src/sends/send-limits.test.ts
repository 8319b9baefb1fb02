// The fair-share lane choice and the recipient count of the send limits, with Redis faked at its one call
// (`eval` of the window's counter) and the logger a recorder. The request limit and the daily cap read the
// project's overrides through packages/db (projectSendLimits on `db.pool`) and are covered by
// test/send-limits.int.test.ts against the real Redis and PostgreSQL.
import type { Redis } from "ioredis";
import { projectIdOf } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { createSendLimits, recipientsOf, type SendLimitsConfig } from "./send-limits";

const PROJECT = projectIdOf("0190a0b0-0000-7000-8000-000000000003");

const config = (over: Partial<SendLimitsConfig> = {}): SendLimitsConfig => ({
  requestsPerMinute: 0,
  windowMs: 60_000,
  dailyCap: 0,
  // 10/s × 50% × 10 s: a project may send 50 transactional emails a window
  providerRatePerSecond: 10,
  fairShare: 0.5,
  fairShareWindowMs: 10_000,
  ...over,
});

/** Redis whose window counter already holds `before` emails (or that is down). */
function fakeRedis(before: number | Error) {
  const calls: unknown[][] = [];
  let count = typeof before === "number" ? before : 0;
  const redis = {
    eval: async (...args: unknown[]) => {
      calls.push(args);
      if (before instanceof Error) throw before;
      count += Number(args[3]);
      return count;
    },
  } as unknown as Redis;
  return { redis, calls };
}

function limitsWith(redis: Redis, over: Partial<SendLimitsConfig> = {}) {
  const warnings: string[] = [];
  const logger = { warn: (_o: unknown, msg: string) => void warnings.push(msg) } as unknown as Logger;
  const limits = createSendLimits({ db: {} as Db, redis, logger }, config(over));
  return { limits, warnings };
}

describe("laneFor (fair share of the provider rate)", () => {
  it("stays transactional up to the project's share of the window, and goes bulk past it", async () => {
    const { redis, calls } = fakeRedis(0);
    const { limits } = limitsWith(redis);
    expect(await limits.laneFor(PROJECT, 30)).toBe("transactional");
    expect(await limits.laneFor(PROJECT, 20)).toBe("transactional"); // 50: exactly the share
    expect(await limits.laneFor(PROJECT, 1)).toBe("bulk");
    // counted per project and window
    expect(calls[0]![2]).toMatch(new RegExp(`^sendshare:${PROJECT}:\\d+$`));
  });

  it("is off (transactional, Redis untouched) without a provider rate or recipients", async () => {
    const { redis, calls } = fakeRedis(1_000);
    expect(await limitsWith(redis, { providerRatePerSecond: 0 }).limits.laneFor(PROJECT, 5)).toBe(
      "transactional",
    );
    expect(await limitsWith(redis).limits.laneFor(PROJECT, 0)).toBe("transactional");
    expect(calls).toEqual([]);
  });

  it("fails open: with Redis down the send stays transactional and the outage is logged once", async () => {
    const { redis } = fakeRedis(new Error("ECONNREFUSED"));
    const { limits, warnings } = limitsWith(redis);
    expect(await limits.laneFor(PROJECT, 5)).toBe("transactional");
    expect(await limits.laneFor(PROJECT, 5)).toBe("transactional");
    expect(warnings).toEqual(["send limits store unavailable: sends pass unlimited"]);
  });
});

describe("recipientsOf", () => {
  it("counts recipient_email (one or many) or a batch's recipients", () => {
    expect(
      [
        { recipient_email: "a@example.com" },
        { recipient_email: ["a@example.com", "b@example.com"] },
        { recipients: [{ email: "a" }, { email: "b" }, { email: "c" }] },
        { recipient_email: null },
        {},
        "not an object",
        null,
      ].map(recipientsOf),
    ).toEqual([1, 2, 3, 0, 0, 0, 0]);
  });
});
