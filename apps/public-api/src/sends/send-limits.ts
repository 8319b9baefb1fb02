import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { ProjectId } from "@emailsvc/contracts";
import { type Db, projectSendLimits, type ProjectSendLimits } from "@emailsvc/db";
import { AppError, countRateLimit, ErrorCode, getAuth } from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";
import type { SendLane } from "@emailsvc/sending";

// Issue 49 item 5: nothing limited how fast a key may send. A leaked test key, or one tenant, could loop
// /v1/send-batch (12,500 recipients a call) and take the account-wide provider rate and its 24-hour quota from
// every other tenant. Three limits, shared by every replica through Redis:
//  - requests a minute per API key on the send routes (429, Retry-After, RateLimit-* headers);
//  - emails a UTC day per project, test sends included (429 until midnight UTC);
//  - a fair share of the provider rate: a project's transactional sends past its share go in the bulk lane,
//    which takes only the slots other projects' transactional mail leaves free.
// With Redis down they fail open (logged), as the events limit does: the monthly quota, in the database, still
// holds live sends.

export interface SendLimitsConfig {
  /** requests a minute per API key (SEND_RATE_LIMIT); 0: off */
  requestsPerMinute: number;
  windowMs: number;
  /** emails a UTC day per project (SEND_DAILY_CAP); 0: off */
  dailyCap: number;
  /** the provider's rate for the whole account (SEND_RATE_PER_SECOND, as the send-workers enforce it); 0: off */
  providerRatePerSecond: number;
  /** the share of it one project's transactional sends may take (SEND_FAIR_SHARE) */
  fairShare: number;
  /** the window the share is measured over */
  fairShareWindowMs: number;
}

export interface SendLimits {
  /** the per-key request limit of the send routes */
  requests: RequestHandler;
  /** charges the request's recipients to the project's day; given back when the request is refused */
  dailyCap: (countOf: (body: unknown) => number) => RequestHandler;
  /** `transactional`, or `bulk` once the project's recent transactional sends are past its fair share */
  laneFor(projectId: ProjectId, recipients: number): Promise<SendLane>;
}

/** INCRBY the day's count unless it would pass the cap: {1, count} charged, {0, count} refused. */
const CHARGE_DAY = `
local cap = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur + n > cap then return {0, cur} end
local v = redis.call('INCRBY', KEYS[1], n)
if v == n then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, v}`;

/** INCRBY the window's transactional count; returns it. */
const CHARGE_WINDOW = `
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if v == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v`;

const DAY_MS = 24 * 60 * 60_000;

/** The Redis counter of a project's emails accepted on a UTC day (`day`: YYYY-MM-DD), test sends included. */
export const dailyCapKey = (projectId: ProjectId, day: string) => `sendcap:${projectId}:${day}`;

/** The emails charged to the project's daily cap today (UTC); null when Redis cannot say. */
export async function chargedToday(
  redis: Redis,
  projectId: ProjectId,
  now = new Date(),
): Promise<number | null> {
  try {
    return Number((await redis.get(dailyCapKey(projectId, now.toISOString().slice(0, 10)))) ?? 0);
  } catch {
    return null;
  }
}

export const MSG_DAILY_CAP = (cap: number) =>
  `Daily send limit reached: this project may send ${cap.toLocaleString("en-US")} emails a day (test sends included); it resets at 00:00 UTC`;

export function createSendLimits(
  deps: { db: Db; redis: Redis; logger: Logger },
  config: SendLimitsConfig,
): SendLimits {
  // A project's overrides, read once per 10 s per replica: a change applies within that.
  const overrides = new LRUCache<string, { value: ProjectSendLimits | null }>({ max: 10_000, ttl: 10_000 });
  const limitsOf = async (projectId: ProjectId): Promise<ProjectSendLimits | null> => {
    const hit = overrides.get(projectId);
    if (hit) return hit.value;
    const value = await projectSendLimits(deps.db, projectId);
    overrides.set(projectId, { value });
    return value;
  };
  let lastLog = 0;
  const storeDown = (err: unknown) => {
    if (Date.now() - lastLog < 30_000) return;
    lastLog = Date.now();
    deps.logger.warn({ err: (err as Error)?.message }, "send limits store unavailable: sends pass unlimited");
  };

  const requests: RequestHandler = (_req, res, next) => {
    const auth = getAuth(res);
    limitsOf(auth.projectId)
      .then(async (own) => {
        const limit = own?.sendRateLimit ?? config.requestsPerMinute;
        const verdict = await countRateLimit(
          { redis: deps.redis, limit, windowMs: config.windowMs, bucket: "send", onStoreError: storeDown },
          auth.keyId,
        );
        if (!verdict) return next();
        for (const [name, value] of Object.entries(verdict.headers)) res.setHeader(name, value);
        next(verdict.refused ?? undefined);
      })
      .catch(next);
  };

  const dailyCap =
    (countOf: (body: unknown) => number): RequestHandler =>
    (req: Request, res: Response, next: NextFunction) => {
      const auth = getAuth(res);
      const n = countOf(req.body);
      limitsOf(auth.projectId)
        .then(async (own) => {
          const cap = own?.dailySendCap ?? config.dailyCap;
          if (cap <= 0 || n <= 0) return next();
          const now = Date.now();
          const day = new Date(now).toISOString().slice(0, 10);
          const key = dailyCapKey(auth.projectId, day);
          let out: [number, number];
          try {
            out = (await deps.redis.eval(CHARGE_DAY, 1, key, cap, n, 2 * DAY_MS)) as [number, number];
          } catch (err) {
            storeDown(err);
            return next();
          }
          if (out[0] !== 1) {
            const untilMidnight = Math.ceil((DAY_MS - (now % DAY_MS)) / 1000);
            res.setHeader("Retry-After", String(untilMidnight));
            return next(new AppError(ErrorCode.RATE_LIMITED, MSG_DAILY_CAP(cap)));
          }
          // refused further on (invalid body, unverified sender, quota): given back
          res.once("finish", () => {
            if (res.statusCode >= 400) deps.redis.decrby(key, n).catch(storeDown);
          });
          next();
        })
        .catch(next);
    };

  const laneFor = async (projectId: ProjectId, recipients: number): Promise<SendLane> => {
    const perWindow = (config.providerRatePerSecond * config.fairShare * config.fairShareWindowMs) / 1000;
    if (perWindow <= 0 || recipients <= 0) return "transactional";
    const window = Math.floor(Date.now() / config.fairShareWindowMs);
    try {
      const count = Number(
        await deps.redis.eval(
          CHARGE_WINDOW,
          1,
          `sendshare:${projectId}:${window}`,
          recipients,
          2 * config.fairShareWindowMs,
        ),
      );
      return count > perWindow ? "bulk" : "transactional";
    } catch (err) {
      storeDown(err);
      return "transactional";
    }
  };

  return { requests, dailyCap, laneFor };
}

/** The recipients a v1 send request asks for: `recipient_email` (one or many) or a batch's `recipients`. */
export function recipientsOf(body: unknown): number {
  if (!body || typeof body !== "object") return 0;
  const b = body as { recipient_email?: unknown; recipients?: unknown };
  const r = b.recipients ?? b.recipient_email;
  if (Array.isArray(r)) return r.length;
  return r === undefined || r === null ? 0 : 1;
}
