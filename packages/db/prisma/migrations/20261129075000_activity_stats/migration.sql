-- The dashboard's overview (issue 45): sent, delivered, opened, clicked, bounced, complained and failed per project,
-- mode and hour, kept as each activity reaches those states, so a 30-day chart reads at most 720 rows per shard
-- instead of counting millions of activities per request.
--
-- Kept by statement-level triggers on activities (one upsert per statement, whatever its row count), so every
-- writer (send-worker, notification-ingest, tracking, the dispatcher, cancels) is counted once, in the transaction
-- that moves the activity, and a message redelivered after a crash cannot count twice: a timestamp that is already
-- set adds nothing, one that moves between hours moves its count. `shard` spreads concurrent writers of one
-- project's hour over 8 rows (by backend), so they do not queue on one row lock; readers sum the shards.

-- CreateTable
CREATE TABLE "activity_stats_hourly" (
    "project_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "shard" SMALLINT NOT NULL,
    "sent" INTEGER NOT NULL DEFAULT 0,
    "delivered" INTEGER NOT NULL DEFAULT 0,
    "opened" INTEGER NOT NULL DEFAULT 0,
    "clicked" INTEGER NOT NULL DEFAULT 0,
    "bounced" INTEGER NOT NULL DEFAULT 0,
    "complained" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "activity_stats_hourly_pkey" PRIMARY KEY ("project_id","is_test","hour","shard")
);

-- The hours each changed activity's tracked timestamps fall in, +1 for the new values and -1 for the old ones.
CREATE FUNCTION activity_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO activity_stats_hourly AS s
      (project_id, is_test, hour, shard, sent, delivered, opened, clicked, bounced, complained, failed)
    SELECT d.project_id, d.is_test, d.hour, (pg_backend_pid() % 64)::smallint,
           count(*) FILTER (WHERE d.kind = 1), count(*) FILTER (WHERE d.kind = 2),
           count(*) FILTER (WHERE d.kind = 3), count(*) FILTER (WHERE d.kind = 4),
           count(*) FILTER (WHERE d.kind = 5), count(*) FILTER (WHERE d.kind = 6),
           count(*) FILTER (WHERE d.kind = 7)
      FROM (
        SELECT n.project_id, n.is_test, x.hour, x.kind
          FROM new_rows n
          CROSS JOIN LATERAL (VALUES
            (date_trunc('hour', n.sent_at), 1), (date_trunc('hour', n.delivered_at), 2),
            (date_trunc('hour', n.opened_first_at), 3), (date_trunc('hour', n.clicked_first_at), 4),
            (date_trunc('hour', n.bounced_at), 5), (date_trunc('hour', n.complained_at), 6),
            (date_trunc('hour', n.failed_at), 7)) x(hour, kind)
         WHERE n.project_id IS NOT NULL AND x.hour IS NOT NULL
      ) d
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (project_id, is_test, hour, shard) DO UPDATE SET
      sent = s.sent + EXCLUDED.sent, delivered = s.delivered + EXCLUDED.delivered,
      opened = s.opened + EXCLUDED.opened, clicked = s.clicked + EXCLUDED.clicked,
      bounced = s.bounced + EXCLUDED.bounced, complained = s.complained + EXCLUDED.complained,
      failed = s.failed + EXCLUDED.failed;
  ELSE
    INSERT INTO activity_stats_hourly AS s
      (project_id, is_test, hour, shard, sent, delivered, opened, clicked, bounced, complained, failed)
    SELECT k.project_id, k.is_test, k.hour, (pg_backend_pid() % 64)::smallint,
           coalesce(sum(k.n) FILTER (WHERE k.kind = 1), 0), coalesce(sum(k.n) FILTER (WHERE k.kind = 2), 0),
           coalesce(sum(k.n) FILTER (WHERE k.kind = 3), 0), coalesce(sum(k.n) FILTER (WHERE k.kind = 4), 0),
           coalesce(sum(k.n) FILTER (WHERE k.kind = 5), 0), coalesce(sum(k.n) FILTER (WHERE k.kind = 6), 0),
           coalesce(sum(k.n) FILTER (WHERE k.kind = 7), 0)
      FROM (
        -- net change per hour and state; a timestamp rewritten within its hour nets to nothing
        SELECT n.project_id, n.is_test, x.hour, x.kind, sum(x.delta)::int AS n
          FROM new_rows n
          JOIN old_rows o ON o.id = n.id
          CROSS JOIN LATERAL (VALUES
            (date_trunc('hour', n.sent_at), 1, 1), (date_trunc('hour', o.sent_at), 1, -1),
            (date_trunc('hour', n.delivered_at), 2, 1), (date_trunc('hour', o.delivered_at), 2, -1),
            (date_trunc('hour', n.opened_first_at), 3, 1), (date_trunc('hour', o.opened_first_at), 3, -1),
            (date_trunc('hour', n.clicked_first_at), 4, 1), (date_trunc('hour', o.clicked_first_at), 4, -1),
            (date_trunc('hour', n.bounced_at), 5, 1), (date_trunc('hour', o.bounced_at), 5, -1),
            (date_trunc('hour', n.complained_at), 6, 1), (date_trunc('hour', o.complained_at), 6, -1),
            (date_trunc('hour', n.failed_at), 7, 1), (date_trunc('hour', o.failed_at), 7, -1)) x(hour, kind, delta)
         WHERE n.project_id IS NOT NULL AND x.hour IS NOT NULL
           AND (n.sent_at, n.delivered_at, n.opened_first_at, n.clicked_first_at, n.bounced_at, n.complained_at,
                n.failed_at)
               IS DISTINCT FROM
               (o.sent_at, o.delivered_at, o.opened_first_at, o.clicked_first_at, o.bounced_at, o.complained_at,
                o.failed_at)
         GROUP BY 1, 2, 3, 4
        HAVING sum(x.delta) <> 0
      ) k
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (project_id, is_test, hour, shard) DO UPDATE SET
      sent = s.sent + EXCLUDED.sent, delivered = s.delivered + EXCLUDED.delivered,
      opened = s.opened + EXCLUDED.opened, clicked = s.clicked + EXCLUDED.clicked,
      bounced = s.bounced + EXCLUDED.bounced, complained = s.complained + EXCLUDED.complained,
      failed = s.failed + EXCLUDED.failed;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER activity_stats_insert AFTER INSERT ON activities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_stats_apply();
CREATE TRIGGER activity_stats_update AFTER UPDATE ON activities
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activity_stats_apply();

-- What the activities already hold.
INSERT INTO activity_stats_hourly
  (project_id, is_test, hour, shard, sent, delivered, opened, clicked, bounced, complained, failed)
SELECT d.project_id, d.is_test, d.hour, 0,
       count(*) FILTER (WHERE d.kind = 1), count(*) FILTER (WHERE d.kind = 2), count(*) FILTER (WHERE d.kind = 3),
       count(*) FILTER (WHERE d.kind = 4), count(*) FILTER (WHERE d.kind = 5), count(*) FILTER (WHERE d.kind = 6),
       count(*) FILTER (WHERE d.kind = 7)
  FROM (
    SELECT a.project_id, a.is_test, x.hour, x.kind
      FROM activities a
      CROSS JOIN LATERAL (VALUES
        (date_trunc('hour', a.sent_at), 1), (date_trunc('hour', a.delivered_at), 2),
        (date_trunc('hour', a.opened_first_at), 3), (date_trunc('hour', a.clicked_first_at), 4),
        (date_trunc('hour', a.bounced_at), 5), (date_trunc('hour', a.complained_at), 6),
        (date_trunc('hour', a.failed_at), 7)) x(hour, kind)
     WHERE a.project_id IS NOT NULL AND x.hour IS NOT NULL
  ) d
 GROUP BY 1, 2, 3;
