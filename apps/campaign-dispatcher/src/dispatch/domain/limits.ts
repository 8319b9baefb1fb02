import type { RateLimitCause } from "@emailsvc/contracts";

/**
 * The limits that put a campaign in `rate_limited` (issue 24): the provider's 24-hour quota, the platform's
 * monthly quota and the sending domain's warm-up ramp. Pure: each answers what is left, and when a limit is used
 * up, why and when its window reopens.
 */
export interface LimitState {
  /** recipients the campaign may still hand over, by this limit (Infinity: no limit) */
  left: number;
  /** when `left` is 0: the cause and when to look again */
  blocked?: { cause: RateLimitCause; reason: string; until: Date };
}

/** Days since the epoch, at the dispatcher's time scale (a day is 24 of its hours). */
export const dayNumber = (nowMs: number, hourMs: number): number => Math.floor(nowMs / (24 * hourMs));

/**
 * The warm-up ramp: `ramp[d]` campaign sends on the domain's (d+1)-th day of campaign sending, no limit after the
 * last entry. Day 1 is the first day it sent (today, when it never did).
 */
export function warmupLimit(
  ramp: readonly number[],
  firstDay: number | null,
  today: number,
  used: number,
  domain: string,
  hourMs: number,
): LimitState {
  const index = firstDay === null ? 0 : today - firstDay;
  const cap = ramp[index];
  if (cap === undefined) return { left: Infinity };
  const left = Math.max(0, cap - used);
  if (left > 0) return { left };
  return {
    left: 0,
    blocked: {
      cause: "warmup",
      reason: `warm-up of ${domain}: day ${index + 1} allows ${cap.toLocaleString("en-US")} campaign emails and they are sent; it continues tomorrow`,
      until: new Date((today + 1) * 24 * hourMs),
    },
  };
}

/** Spec 8's monthly platform quota: what the project may still send this calendar month (UTC). */
export function monthlyLimit(left: number, now: Date): LimitState {
  if (left > 0) return { left };
  return {
    left: 0,
    blocked: {
      cause: "monthly_quota",
      reason: "the project's monthly quota (500,000 emails) is used up; it continues next month",
      until: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    },
  };
}

/**
 * The provider's 24-hour quota (spec 8: 106,000), account-wide: what SES reported sent (`GetAccount`), plus what it
 * has not counted yet: the campaign sends handed over since that reading, or those in flight now, whichever is
 * more (each is a part of them). SES's window rolls and it does not say when room frees up, so the campaign is
 * looked at again after `recheckMs`.
 */
export function providerDailyLimit(
  quota: { max24HourSend: number; sentLast24Hours: number; handedOverSince: number },
  inFlight: number,
  now: number,
  recheckMs: number,
): LimitState {
  const used = quota.sentLast24Hours + Math.max(quota.handedOverSince, inFlight);
  const left = Math.max(0, quota.max24HourSend - used);
  if (left > 0) return { left };
  return {
    left: 0,
    blocked: {
      cause: "provider_daily_quota",
      reason: `the provider's 24-hour sending quota (${quota.max24HourSend.toLocaleString("en-US")} emails) is used up; it continues as the window frees up`,
      until: new Date(now + recheckMs),
    },
  };
}
