// Issue 45: the dashboard's overview. Its counts come from activity_stats_hourly, kept by triggers on activities
// as the send-worker, notification-ingest and tracking set each activity's timestamps. Here those writers' updates
// are played as SQL statements (single rows, batches, the same update twice, a timestamp moved, concurrent
// writers), and after each the roll-up must equal a plain count over the activities. Real PostgreSQL and Redis.
import request from "supertest";
import { bearer, makeProject, startHarness, testEnv, type Harness } from "./helpers";

let h: Harness;
const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const run = Date.now().toString(36);

beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(async () => {
  await h?.close();
});

const send = (key: string, sender: string, to: string) =>
  request(h.app)
    .post("/v1/send-email")
    .set(bearer(key))
    .send({ recipient_email: to, sender_email: sender, subject: "Hi", html_body: "<p>hello</p>" });

const COLUMNS = {
  sent: "sent_at",
  delivered: "delivered_at",
  opened: "opened_first_at",
  clicked: "clicked_first_at",
  bounced: "bounced_at",
  complained: "complained_at",
  failed: "failed_at",
} as const;
type Kind = keyof typeof COLUMNS;

/** What the roll-up holds for the project and mode, summed over hours and shards. */
async function rolledUp(projectId: string, isTest: boolean): Promise<Record<Kind, number>> {
  const { rows } = await h.deps.db.pool.query(
    `SELECT ${Object.keys(COLUMNS)
      .map((k) => `coalesce(sum(${k}), 0)::int AS ${k}`)
      .join(", ")} FROM activity_stats_hourly WHERE project_id = $1 AND is_test = $2`,
    [projectId, isTest],
  );
  return rows[0];
}

/** The same figures counted from the activities themselves. */
async function counted(projectId: string, isTest: boolean): Promise<Record<Kind, number>> {
  const { rows } = await h.deps.db.pool.query(
    `SELECT ${Object.entries(COLUMNS)
      .map(([k, c]) => `count(${c})::int AS ${k}`)
      .join(", ")} FROM activities WHERE project_id = $1 AND is_test = $2`,
    [projectId, isTest],
  );
  return rows[0];
}

/** Per-hour agreement too: each hour's roll-up equals the activities whose timestamp falls in that hour. */
async function hoursDisagreeing(projectId: string): Promise<unknown[]> {
  const { rows } = await h.deps.db.pool.query(
    `WITH c AS (
       SELECT x.is_test, x.hour, x.kind, count(*)::int AS n
         FROM activities a
         CROSS JOIN LATERAL (VALUES ${Object.entries(COLUMNS)
           .map(([k, c]) => `(a.is_test, date_trunc('hour', a.${c}), '${k}')`)
           .join(", ")}) x(is_test, hour, kind)
        WHERE a.project_id = $1 AND x.hour IS NOT NULL GROUP BY 1, 2, 3
     ), r AS (
       SELECT s.is_test, s.hour, x.kind, sum(x.n)::int AS n
         FROM activity_stats_hourly s
         CROSS JOIN LATERAL (VALUES ${Object.keys(COLUMNS)
           .map((k) => `('${k}', s.${k})`)
           .join(", ")}) x(kind, n)
        WHERE s.project_id = $1 GROUP BY 1, 2, 3 HAVING sum(x.n) <> 0
     )
     SELECT * FROM c FULL JOIN r USING (is_test, hour, kind) WHERE c.n IS DISTINCT FROM r.n`,
    [projectId],
  );
  return rows;
}

async function expectAgreement(projectId: string) {
  for (const isTest of [false, true])
    expect(await rolledUp(projectId, isTest)).toEqual(await counted(projectId, isTest));
  expect(await hoursDisagreeing(projectId)).toEqual([]);
}

const ids = async (projectId: string, isTest: boolean): Promise<string[]> =>
  (
    await h.deps.db.pool.query<{ id: string }>(
      "SELECT id FROM activities WHERE project_id = $1 AND is_test = $2 ORDER BY recipient",
      [projectId, isTest],
    )
  ).rows.map((r) => r.id);

it("keeps the overview's counts equal to the activities through single, batched, repeated, moved and concurrent updates", async () => {
  const p = await makeProject(h.deps);
  for (let i = 0; i < 6; i++)
    expect((await send(p.liveKey, p.sender, `live${i}-${run}@example.org`)).status).toBe(200);
  for (let i = 0; i < 2; i++)
    expect((await send(p.testKey, p.sender, `test${i}-${run}@example.org`)).status).toBe(200);
  const live = await ids(p.projectId, false);
  const test = await ids(p.projectId, true);
  expect(live).toHaveLength(6);
  await expectAgreement(p.projectId);
  const q = (sql: string, params: unknown[]) => h.deps.db.pool.query(sql, params);

  // the send-worker marks a batch sent in one statement, then once more (a redelivered message): counted once
  const markSent =
    "UPDATE activities SET status = 'sent', sent_at = coalesce(sent_at, now()) WHERE id = ANY($1)";
  await q(markSent, [live.slice(0, 5)]);
  await q(markSent, [live.slice(0, 5)]);
  await q(markSent, [test]);
  await expectAgreement(p.projectId);
  expect((await rolledUp(p.projectId, false)).sent).toBe(5);

  // provider outcomes and tracking, row by row
  await q("UPDATE activities SET status = 'delivered', delivered_at = now() WHERE id = ANY($1)", [
    live.slice(0, 4),
  ]);
  await q(
    "UPDATE activities SET status = 'bounced', bounced_at = now(), bounce_type = 'Permanent' WHERE id = $1",
    [live[4]],
  );
  await q("UPDATE activities SET complained_at = now() WHERE id = $1", [live[0]]);
  await q("UPDATE activities SET opened_first_at = now() WHERE id = ANY($1)", [live.slice(0, 3)]);
  await q("UPDATE activities SET clicked_first_at = now() WHERE id = $1", [live[1]]);
  await q("UPDATE activities SET status = 'failed', failed_at = now(), failure_reason = 'x' WHERE id = $1", [
    live[5],
  ]);
  // an update that touches no tracked timestamp adds nothing
  await q("UPDATE activities SET send_attempts = send_attempts + 1 WHERE project_id = $1", [p.projectId]);
  await expectAgreement(p.projectId);

  // a timestamp moved to another hour moves its count; one cleared takes it away
  await q("UPDATE activities SET delivered_at = delivered_at - interval '3 hours' WHERE id = $1", [live[1]]);
  await q("UPDATE activities SET clicked_first_at = NULL WHERE id = $1", [live[1]]);
  await expectAgreement(p.projectId);

  // concurrent writers (other backends, so other shards) on the same hour
  await Promise.all(
    live.map((id) =>
      q("UPDATE activities SET opened_first_at = coalesce(opened_first_at, now()) WHERE id = $1", [id]),
    ),
  );
  await expectAgreement(p.projectId);
  expect(await rolledUp(p.projectId, false)).toEqual({
    sent: 5,
    delivered: 4,
    opened: 6,
    clicked: 0,
    bounced: 1,
    complained: 1,
    failed: 1,
  });

  // what the page reads: the 24 h chart per hour, totals, rates, and the quotas used
  const res = await request(h.internal).get(`/admin/projects/${p.projectId}/overview?range=24h`).set(ADMIN);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ range: "24h", mode: "live", bucket: "hour", time_zone: "UTC" });
  expect(res.body.series).toHaveLength(24);
  expect(res.body.totals).toMatchObject({ sent: 5, delivered: 4, bounced: 1, complained: 1, failed: 1 });
  expect(res.body.rates.bounce_rate).toBeCloseTo(1 / 5);
  expect(res.body.rates.complaint_rate).toBeCloseTo(1 / 4);
  expect(res.body.rate_lines).toEqual({
    bounce_rate: 0.05,
    complaint_rate: 0.001,
    complaint_rate_max: 0.003,
  });
  // the delivery moved 3 hours back is still in the 24 h window, in its own hour
  const delivered = res.body.series.map((b: { delivered: number }) => b.delivered);
  expect(delivered.reduce((a: number, b: number) => a + b, 0)).toBe(4);
  expect(delivered.filter((n: number) => n > 0)).toHaveLength(2);
  expect(res.body.quota.month).toMatchObject({ live_sent: 6, limit: 500_000 });
  expect(res.body.quota.today).toMatchObject({ charged: 8, daily_cap: 53_000 });

  const testView = await request(h.internal)
    .get(`/admin/projects/${p.projectId}/overview?range=24h&mode=test`)
    .set(ADMIN);
  expect(testView.body.totals).toMatchObject({ sent: 2, delivered: 0 });
  expect(testView.body.rates.complaint_rate).toBeNull();
});

it("draws 7 and 30 days as calendar days of the project's time zone, and names a bad range", async () => {
  const p = await makeProject(h.deps);
  await h.deps.db.prisma.project.update({
    where: { id: p.projectId },
    data: { defaultTimezone: "America/New_York" },
  });
  expect((await send(p.liveKey, p.sender, `tz-${run}@example.org`)).status).toBe(200);
  // sent 2 days ago at 03:30 UTC: the evening before in New York
  await h.deps.db.pool.query(
    "UPDATE activities SET sent_at = date_trunc('day', now() - interval '2 days') + interval '3 hours 30 minutes' WHERE project_id = $1",
    [p.projectId],
  );
  const week = await request(h.internal).get(`/admin/projects/${p.projectId}/overview?range=7d`).set(ADMIN);
  expect(week.status).toBe(200);
  expect(week.body).toMatchObject({ bucket: "day", time_zone: "America/New_York" });
  expect(week.body.series).toHaveLength(7);
  const day = week.body.series.find((b: { sent: number }) => b.sent === 1);
  const utcDay = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  // the New York day before that UTC day, starting at its local midnight (04:00 or 05:00 UTC)
  expect(day.at.slice(0, 10)).toBe(new Date(Date.parse(utcDay) - 86_400_000).toISOString().slice(0, 10));
  expect(day.at).toMatch(/T0[45]:00:00\.000Z$/);

  const month = await request(h.internal).get(`/admin/projects/${p.projectId}/overview?range=30d`).set(ADMIN);
  expect(month.body.series).toHaveLength(30);
  expect(month.body.totals.sent).toBe(1);

  const bad = await request(h.internal).get(`/admin/projects/${p.projectId}/overview?range=1y`).set(ADMIN);
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body)).toContain("range");
});
