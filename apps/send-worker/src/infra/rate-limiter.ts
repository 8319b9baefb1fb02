import { randomUUID } from "node:crypto";
import type Redis from "ioredis";

/**
 * The account-wide send rate, shared by every replica, on Redis' clock (so replicas' clocks don't matter), in three
 * Lua calls per send:
 *
 * 1. RESERVE, a GCRA slot reservation: each caller is handed the next free slot (slots are 1/rate seconds apart)
 *    and sleeps until it, so sends are spaced evenly instead of bursting. (RESERVE_BULK for the bulk lane.)
 * 2. DISPATCH, right before the provider call: a sorted set of provider calls, each unanswered one counted as
 *    arriving now and each answered one at its answer time. A call may go only while fewer than `rate` calls are
 *    unanswered or were answered within the last second; it joins the set as unanswered.
 * 3. ANSWERED, when the call ends (answer or error): the call is re-scored with Redis' time, which is after it
 *    arrived at the provider.
 *
 * The provider counts calls per sliding second as they *arrive*, which is some time after they leave: the earlier
 * limiter, exact by Redis' clock (a log of dispatch times), saw 216-221 arrivals in one second at the simulator at
 * 200/s, with the check-to-arrival delay up to 1.5 s under load. Counting calls until their answer makes the limit
 * hold whatever that delay: take any second [a, a+1s) at the provider and the call arriving in it that was checked
 * last, at c (c < a+1s). Every other call arriving in that second was checked before c and answered at or after
 * its arrival, so after a > c-1s: at c it was unanswered or answered within the last second, and was counted. So
 * at most `rate` - 1 others arrive in that second. The price is that each call holds its place from its check to a
 * second after its answer, so the rate reached is `rate` × 1 s / (1 s + check-to-answer time): keep that short.
 *
 * An unanswered call is scored `now + holdMs` (past the provider timeout), so a caller killed mid-call leaves an
 * entry that ages out, and the key itself expires when no one sends.
 */
const RESERVE = `
local interval = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
redis.call('SET', KEYS[1], tostring(tat + interval), 'PX', math.ceil(tat - now + interval + 1000))
return tostring(tat - now)
`;

/**
 * RESERVE for the bulk lane: a slot only while the slots already booked end within `maxAhead` ms of now, else the
 * (negative) time until they do, and nothing is booked. Bulk sends thus take the spare capacity only: however
 * large a campaign's backlog, a transactional send's RESERVE finds the next free slot at most `maxAhead` ms away.
 */
const RESERVE_BULK = `
local interval = tonumber(ARGV[1])
local maxAhead = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
if tat - now > maxAhead then return tostring(-(tat - now - maxAhead)) end
redis.call('SET', KEYS[1], tostring(tat + interval), 'PX', math.ceil(tat - now + interval + 1000))
return tostring(tat - now)
`;

/**
 * DISPATCH over a sorted set of provider calls: an unanswered call is scored `now + holdMs` (so it counts as arriving
 * now, and a crashed caller's entry ages out), an answered one by its answer time. A caller may go while fewer than
 * `rate` calls are unanswered or answered within the last second; it then joins as unanswered. Else it returns how
 * long until the call that must leave the second does (or `pollMs` while that call is still unanswered).
 */
const DISPATCH = `
local rate = tonumber(ARGV[1])
local holdMs = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1000)
local n = redis.call('ZCARD', KEYS[1])
if n >= rate then
  local s = tonumber(redis.call('ZRANGE', KEYS[1], n - rate, n - rate, 'WITHSCORES')[2])
  if s <= now then return tostring(s + 1000 - now) end
  return ARGV[4]
end
redis.call('ZADD', KEYS[1], now + holdMs, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(holdMs) + 2000)
return '0'
`;

/**
 * A call answered: scored by Redis' time now, which is after the caller saw the answer, so after the call arrived
 * at the provider.
 */
const ANSWERED = `
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000, ARGV[1])
redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])) + 2000)
return 0
`;

/** A provider call `dispatch` let go: tell the limiter how it ended. */
export interface ProviderCall {
  /** The provider answered, or the call failed: it counts until 1 s after now. Call it as soon as the call ends. */
  answered(): void;
  /** The call was not made after all (nothing left for the provider): its place is free at once. */
  unused(): void;
}

export interface RateLimiter {
  /** Resolves when this caller may send (`reserve` then `dispatch`); call it right before the provider call. */
  acquire(lane?: SendLaneName): Promise<ProviderCall>;
  /** The first half: waits for this caller's evenly spaced slot. */
  reserve(): Promise<void>;
  /**
   * The first half on the bulk lane (campaigns): waits until a slot is spare (booked slots end within
   * `bulkMaxAheadMs`), then for that slot. One caller per process asks Redis at a time; the others queue here.
   */
  reserveBulk(): Promise<void>;
  /**
   * The second half, right before the provider call: waits until fewer than `perSecond` calls are unanswered or
   * were answered within the last second, and counts this one as unanswered until `answered` (or `unused`). On the
   * bulk lane one caller per process waits in Redis at a time; the others queue here.
   */
  dispatch(lane?: SendLaneName): Promise<ProviderCall>;
}

type SendLaneName = "transactional" | "bulk";

const noCall: ProviderCall = { answered: () => undefined, unused: () => undefined };

export function createRateLimiter(
  redis: Redis,
  opts: {
    perSecond: number;
    key?: string;
    bulkMaxAheadMs?: number;
    /**
     * How long an unanswered call counts as arriving (a worker killed mid-call leaves its entry until then, plus
     * the second): at least the provider timeout.
     */
    holdMs?: number;
    /** How often a caller asks again while the calls ahead of it are all unanswered. */
    pollMs?: number;
    /**
     * Told, per provider call answered, how long it held its place from its check to its answer (ms): the rate
     * reached is `perSecond` × 1 s / (1 s + that time), so it says what the limit costs.
     */
    onAnswered?: (heldMs: number) => void;
  },
): RateLimiter {
  if (opts.perSecond <= 0) {
    const none = async () => undefined;
    const call = async () => noCall;
    return { acquire: call, reserve: none, reserveBulk: none, dispatch: call };
  }
  const bulkMaxAhead = String(opts.bulkMaxAheadMs ?? 250);
  let bulkTurn: Promise<void> = Promise.resolve();
  let bulkDispatchTurn: Promise<void> = Promise.resolve();
  const interval = 1000 / opts.perSecond;
  const key = opts.key ?? "emailsvc:send-rate";
  const callsKey = `${key}:calls`;
  const rate = String(Math.max(1, Math.floor(opts.perSecond)));
  const holdMs = String(opts.holdMs ?? 15_000);
  const pollMs = String(opts.pollMs ?? 10);
  const idPrefix = `${randomUUID()}:`;
  let nextId = 0;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.ceil(ms)));
  /** Runs `fn` after the previous caller of the same turn has finished its own. */
  const inTurn = async <T>(turn: "reserve" | "dispatch", fn: () => Promise<T>): Promise<T> => {
    const before = turn === "reserve" ? bulkTurn : bulkDispatchTurn;
    let done!: () => void;
    const mine = new Promise<void>((r) => (done = r));
    if (turn === "reserve") bulkTurn = mine;
    else bulkDispatchTurn = mine;
    try {
      await before;
      return await fn();
    } finally {
      done();
    }
  };
  const waitForPlace = async (id: string) => {
    for (;;) {
      const waitMs = Number(await redis.eval(DISPATCH, 1, callsKey, rate, holdMs, id, pollMs));
      if (waitMs <= 0) return;
      await sleep(waitMs);
    }
  };
  const limiter: RateLimiter = {
    async reserve() {
      const slotIn = Number(await redis.eval(RESERVE, 1, key, String(interval)));
      if (slotIn > 0) await sleep(slotIn);
    },
    async reserveBulk() {
      const slotIn = await inTurn("reserve", async () => {
        for (;;) {
          const n = Number(await redis.eval(RESERVE_BULK, 1, key, String(interval), bulkMaxAhead));
          if (n >= 0) return n;
          await sleep(-n);
        }
      });
      if (slotIn > 0) await sleep(slotIn);
    },
    async dispatch(lane) {
      const id = idPrefix + String(nextId++);
      await (lane === "bulk" ? inTurn("dispatch", () => waitForPlace(id)) : waitForPlace(id));
      const checkedAt = performance.now();
      let settled = false;
      const end = (how: "answered" | "unused") => {
        if (settled) return;
        settled = true;
        if (how === "answered") opts.onAnswered?.(performance.now() - checkedAt);
        // Not awaited: the send goes on. A failed write leaves the entry to age out (holdMs); it never lets more by.
        const write =
          how === "answered" ? redis.eval(ANSWERED, 1, callsKey, id, holdMs) : redis.zrem(callsKey, id);
        write.catch(() => undefined);
      };
      return { answered: () => end("answered"), unused: () => end("unused") };
    },
    async acquire(lane) {
      await (lane === "bulk" ? limiter.reserveBulk() : limiter.reserve());
      return limiter.dispatch(lane);
    },
  };
  return limiter;
}
