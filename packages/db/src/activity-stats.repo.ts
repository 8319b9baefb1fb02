import type { ProjectId } from "@emailsvc/contracts";
import type { Db } from "./create-db";

// The overview's counts (issue 45), read from activity_stats_hourly: rows the activities' triggers keep per
// project, mode, hour and shard (migration 20261129075000_activity_stats). A 30-day chart sums at most
// 720 hours × 8 shards of one project, whatever the number of activities.

export interface ActivityCounts {
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  failed: number;
}

export interface ActivityCountsAt extends ActivityCounts {
  /** the bucket's start (an hour, or a day in `timeZone`) */
  at: Date;
}

const COUNTS = `coalesce(sum(sent), 0)::int AS sent, coalesce(sum(delivered), 0)::int AS delivered,
  coalesce(sum(opened), 0)::int AS opened, coalesce(sum(clicked), 0)::int AS clicked,
  coalesce(sum(bounced), 0)::int AS bounced, coalesce(sum(complained), 0)::int AS complained,
  coalesce(sum(failed), 0)::int AS failed`;

/**
 * The counts per bucket from `since` to `until`, every bucket present (zeros where nothing happened). Days are the
 * calendar days of `timeZone` (an IANA name), generated in local time so a DST day is one bucket of 23 or 25 hours.
 * A zone whose offset is not whole hours gets its days to within that part of an hour (the rows are UTC hours).
 */
export async function activityCountsSeries(
  db: Db,
  projectId: ProjectId,
  opts: { isTest: boolean; since: Date; until: Date; bucket: "hour" | "day"; timeZone: string },
): Promise<ActivityCountsAt[]> {
  const { rows } = await db.pool.query<ActivityCountsAt>(
    `WITH buckets AS (
       SELECT g AT TIME ZONE $5 AS at
         FROM generate_series(date_trunc($6, $3::timestamptz AT TIME ZONE $5), $4::timestamptz AT TIME ZONE $5,
                              ('1 ' || $6)::interval) g
     ), counts AS (
       SELECT date_trunc($6, hour, $5) AS at, ${COUNTS}
         FROM activity_stats_hourly
        WHERE project_id = $1 AND is_test = $2 AND hour >= (SELECT min(at) FROM buckets) AND hour < $4
        GROUP BY 1
     )
     SELECT b.at, coalesce(c.sent, 0) AS sent, coalesce(c.delivered, 0) AS delivered,
            coalesce(c.opened, 0) AS opened, coalesce(c.clicked, 0) AS clicked, coalesce(c.bounced, 0) AS bounced,
            coalesce(c.complained, 0) AS complained, coalesce(c.failed, 0) AS failed
       FROM buckets b LEFT JOIN counts c ON c.at = b.at
      ORDER BY b.at`,
    [projectId, opts.isTest, opts.since, opts.until, opts.timeZone, opts.bucket],
  );
  return rows;
}

/** The counts of one mode from `since` (inclusive, to the hour) to now. */
export async function activityCountsSince(
  db: Db,
  projectId: ProjectId,
  opts: { isTest: boolean; since: Date },
): Promise<ActivityCounts> {
  const { rows } = await db.pool.query<ActivityCounts>(
    `SELECT ${COUNTS} FROM activity_stats_hourly
      WHERE project_id = $1 AND is_test = $2 AND hour >= date_trunc('hour', $3::timestamptz)`,
    [projectId, opts.isTest, opts.since],
  );
  return rows[0]!;
}
