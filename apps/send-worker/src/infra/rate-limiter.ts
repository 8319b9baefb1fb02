import type Redis from "ioredis";

/**
 * The account-wide send rate, shared by every replica, in two Lua round trips per send, both on Redis' clock (so
 * replicas' clocks don't matter):
 *
 * 1. RESERVE, a GCRA slot reservation: each caller is handed the next free slot (slots are 1/rate seconds apart,
 *    1.5% wider) and sleeps until it, so sends are spaced evenly instead of bursting.
 * 2. DISPATCH, a sliding-window log of the last `rate` actual dispatch times: a caller may go only if the send
 *    `rate` places before it left more than 1 s + `marginMs` ago, else it waits the difference and asks again.
 *
 * The provider counts sends per sliding second as they *arrive*. Slots alone were not enough: a timer that fires
 * late, or a worker busy for a moment, delays one send while the next ones still leave on time, and 17 sends then
 * reached the simulator within one second (bench/rate-limit: 3-4 throttles a minute at 98% of the limit). The
 * window is checked atomically just before the provider call against when sends really left, so only the
 * jitter between leaving and arriving (a few ms, under `marginMs`) is left to chance.
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

const DISPATCH = `
local rate = tonumber(ARGV[1])
local span = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
if redis.call('LLEN', KEYS[1]) >= rate then
  local oldest = tonumber(redis.call('LINDEX', KEYS[1], rate - 1))
  if oldest and now - oldest < span then return tostring(oldest + span - now) end
end
redis.call('LPUSH', KEYS[1], tostring(now))
redis.call('LTRIM', KEYS[1], 0, rate - 1)
redis.call('PEXPIRE', KEYS[1], math.ceil(span) + 1000)
return '0'
`;

export interface RateLimiter {
  /** Resolves when this caller may send (`reserve` then `dispatch`); call it right before the provider call. */
  acquire(): Promise<void>;
  /** The first half: waits for this caller's evenly spaced slot. */
  reserve(): Promise<void>;
  /**
   * The first half on the bulk lane (campaigns): waits until a slot is spare (booked slots end within
   * `bulkMaxAheadMs`), then for that slot. One caller per process asks Redis at a time; the others queue here.
   */
  reserveBulk(): Promise<void>;
  /** The second half, right before the provider call: waits until the sliding second has room. */
  dispatch(): Promise<void>;
}

export function createRateLimiter(
  redis: Redis,
  opts: { perSecond: number; key?: string; marginMs?: number; bulkMaxAheadMs?: number },
): RateLimiter {
  if (opts.perSecond <= 0) {
    const none = async () => undefined;
    return { acquire: none, reserve: none, reserveBulk: none, dispatch: none };
  }
  const bulkMaxAhead = String(opts.bulkMaxAheadMs ?? 250);
  let bulkTurn: Promise<void> = Promise.resolve();
  const interval = 1000 / (opts.perSecond * 0.985);
  const key = opts.key ?? "emailsvc:send-rate";
  const logKey = `${key}:sent`;
  const rate = Math.max(1, Math.floor(opts.perSecond));
  const span = String(1000 + (opts.marginMs ?? 15));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.ceil(ms)));
  const limiter: RateLimiter = {
    async reserve() {
      const slotIn = Number(await redis.eval(RESERVE, 1, key, String(interval)));
      if (slotIn > 0) await sleep(slotIn);
    },
    async reserveBulk() {
      const before = bulkTurn;
      let done!: () => void;
      bulkTurn = new Promise<void>((r) => (done = r));
      let slotIn = 0;
      try {
        await before;
        for (;;) {
          slotIn = Number(await redis.eval(RESERVE_BULK, 1, key, String(interval), bulkMaxAhead));
          if (slotIn >= 0) break;
          await sleep(-slotIn);
        }
      } finally {
        done();
      }
      if (slotIn > 0) await sleep(slotIn);
    },
    async dispatch() {
      for (;;) {
        const waitMs = Number(await redis.eval(DISPATCH, 1, logKey, String(rate), span));
        if (waitMs <= 0) return;
        await sleep(waitMs);
      }
    },
    async acquire() {
      await limiter.reserve();
      await limiter.dispatch();
    },
  };
  return limiter;
}
