import type Redis from "ioredis";

/**
 * The account-wide send rate, shared by every replica: a GCRA slot reservation in one Lua round trip.
 * Each caller is handed the next free slot (slots are 1/rate seconds apart, measured on Redis' clock so
 * replicas' clocks don't matter) and sleeps until it. No bursts: sends are spaced evenly, so no 1-second
 * window ever holds more than `rate` sends.
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

export interface RateLimiter {
  /** Resolves when this caller may send. */
  acquire(): Promise<void>;
}

export function createRateLimiter(redis: Redis, opts: { perSecond: number; key?: string }): RateLimiter {
  if (opts.perSecond <= 0) return { acquire: async () => undefined };
  // 1.5% headroom: sends leave evenly spaced, but network jitter can pull two arrivals closer together at the
  // provider; with the slots 1.5% wider, 17 sends need more than a second even with ~15 ms of squeeze.
  const interval = 1000 / (opts.perSecond * 0.985);
  const key = opts.key ?? "emailsvc:send-rate";
  return {
    async acquire() {
      const waitMs = Number(await redis.eval(RESERVE, 1, key, String(interval)));
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    },
  };
}
