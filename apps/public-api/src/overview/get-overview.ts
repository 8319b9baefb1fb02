import { z } from "zod";
import type { ProjectId } from "@emailsvc/contracts";
import {
  activityCountsSeries,
  type ActivityCounts,
  type Db,
  MONTHLY_QUOTA,
  monthlyLiveSent,
  usagePeriod,
} from "@emailsvc/db";
import type { ProviderQuotaReading } from "./provider-quota";

export const OVERVIEW_RANGES = ["24h", "7d", "30d"] as const;

export const overviewQuery = z.object({
  range: z
    .enum(OVERVIEW_RANGES, { error: `range must be one of ${OVERVIEW_RANGES.join(", ")}` })
    .default("7d"),
  /** spec 2: test sends are apart from live ones */
  mode: z.enum(["live", "test"], { error: "mode must be live or test" }).default("live"),
});

/**
 * The lines the rates are drawn against: a bulk sender's bounces should stay under 5%; Gmail and Yahoo ask for
 * spam complaints under 0.1% and act at 0.3% (their 2024 sender requirements).
 */
export const RATE_LINES = { bounce_rate: 0.05, complaint_rate: 0.001, complaint_rate_max: 0.003 } as const;

export interface OverviewDeps {
  db: Db;
  /** the emails charged to the project's daily cap today, test included (Redis); null when unknown */
  chargedToday: (projectId: ProjectId) => Promise<number | null>;
  /** the provider account's 24-hour quota; null when the provider does not answer */
  providerQuota: () => Promise<ProviderQuotaReading | null>;
  /** the deployment's SEND_DAILY_CAP, for a project without its own */
  defaultDailyCap: number;
}

const DAY_MS = 86_400_000;
const ratio = (n: number, of: number) => (of > 0 ? n / of : null);

function sum(rows: ActivityCounts[]): ActivityCounts {
  const t = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, failed: 0 };
  for (const r of rows) for (const k of Object.keys(t) as (keyof ActivityCounts)[]) t[k] += r[k];
  return t;
}

/**
 * The overview page (issue 45): the range's counts per hour (24 h) or per day in the project's time zone (7 d,
 * 30 d), its totals and rates against the mailbox providers' lines, and the quotas used: the project's daily cap
 * (today, UTC), the monthly live quota, and the provider account's 24-hour quota. Every figure comes from a
 * counter (activity_stats_hourly, project_usage, the daily cap's Redis key, SES GetAccount), never from counting
 * activities, so its cost does not grow with the project.
 */
export async function getOverview(
  deps: OverviewDeps,
  project: { id: ProjectId; defaultTimezone: string | null; dailySendCap: number | null },
  q: z.output<typeof overviewQuery>,
  now = new Date(),
) {
  const timeZone = project.defaultTimezone ?? "UTC";
  const bucket = q.range === "24h" ? "hour" : "day";
  const span = q.range === "24h" ? DAY_MS - 3_600_000 : (q.range === "7d" ? 6 : 29) * DAY_MS;
  const [series, charged, monthSent, provider] = await Promise.all([
    activityCountsSeries(deps.db, project.id, {
      isTest: q.mode === "test",
      since: new Date(now.getTime() - span),
      until: now,
      bucket,
      timeZone,
    }),
    deps.chargedToday(project.id),
    monthlyLiveSent(deps.db, project.id, usagePeriod(now)),
    deps.providerQuota(),
  ]);
  const totals = sum(series);
  const dailyCap = project.dailySendCap ?? deps.defaultDailyCap;
  return {
    range: q.range,
    mode: q.mode,
    time_zone: timeZone,
    bucket,
    series: series.map((r) => ({ ...r, at: r.at.toISOString() })),
    totals,
    rates: {
      // bounces and failures against what was handed to the provider; complaints against what reached inboxes
      bounce_rate: ratio(totals.bounced, totals.sent),
      complaint_rate: ratio(totals.complained, totals.delivered),
      delivery_rate: ratio(totals.delivered, totals.sent),
      open_rate: ratio(totals.opened, totals.delivered),
      click_rate: ratio(totals.clicked, totals.delivered),
    },
    rate_lines: RATE_LINES,
    quota: {
      today: { charged, daily_cap: dailyCap > 0 ? dailyCap : null },
      month: { period: usagePeriod(now), live_sent: monthSent, limit: MONTHLY_QUOTA },
      provider,
    },
  };
}
