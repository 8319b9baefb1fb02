/**
 * bench/dashboard (issue 45). Against a running stack (`pnpm start`; STACK_STATE_DIR / STACK_PORT_OFFSET for a
 * stack beside another one):
 *   1. Seeds one project with --activities (default 10,000,000) activities over the last 30 days (1 message per 10
 *      activities, 1 event per delivered activity, a realistic mix of states, 5% test sends) and --leads (default
 *      1,000,000) leads, by INSERT … SELECT FROM generate_series in chunks (server-side, no round trip per row).
 *      The overview's roll-up is kept by the activities' triggers as the rows go in. The project is kept (its id in
 *      <state dir>/bench-dashboard.json) and reused by the next run; --fresh seeds another.
 *   2. Times the admin API's answers behind each page, --n (default 50) sequential requests each after 3 warm-ups:
 *      activity first page, a filtered page (bounced), a recipient's page, a deep page (cursor 20 pages in), an
 *      activity's detail, the overview's 30-day and 24-hour charts, the leads' first page and a tag's page.
 *      Goals: p95 < 200 ms for each list and detail, < 300 ms for the overview.
 *   3. Next to each, the same query through packages/db's repository function straight on PostgreSQL (no HTTP,
 *      no auth, no JSON): the raw figure, measured in the same run. And the overview as it would cost without
 *      the roll-up: counting the activities per day over 30 days.
 *   CPU ms per request of public-api and PostgreSQL, from /proc.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development dashboard/run.ts [--activities 10000000]
 *      [--leads 1000000] [--n 50] [--fresh]
 */
import fs from "node:fs";
import path from "node:path";
import { Agent, request } from "undici";
import { projectIdOf, type ProjectId } from "@emailsvc/contracts";
import { activityCountsSeries, createDb, findActivityDetail, listActivities } from "@emailsvc/db";
import { cpuBetween, snapshot, stackGroups } from "../lib/proc-cpu";
import { DATABASE_URL, demo, fmt, numArg, percentile, PORT_OFFSET, STACK_DIR } from "../lib/stack";

const d = demo();
const ACTIVITIES = numArg("activities", 10_000_000);
const LEADS = numArg("leads", 1_000_000);
const N = numArg("n", 50);
const CHUNK = 500_000;
const FACTS = path.join(STACK_DIR, "bench-dashboard.json");
const agent = new Agent({ connections: 4 });
const ADMIN = { authorization: `Bearer ${d.admin_token}` };

async function adminGet(p: string): Promise<{ status: number; body: any }> {
  const r = await request(`${d.internal_url}${p}`, { headers: ADMIN, dispatcher: agent });
  const text = await r.body.text();
  return { status: r.statusCode, body: text ? JSON.parse(text) : null };
}

const db = createDb(DATABASE_URL, { max: 2 });
const sql = (text: string, params: unknown[] = []) => db.pool.query(text, params);

async function seed(projectId: string): Promise<void> {
  const t0 = Date.now();
  for (let from = 0; from < ACTIVITIES; from += CHUNK) {
    const to = Math.min(ACTIVITIES, from + CHUNK) - 1;
    const c = Date.now();
    // one message per 10 activities; the activities' times spread over 30 days, their states in a realistic mix
    await sql(
      `INSERT INTO email_messages (id, project_id, is_test, source, from_email, subject, html, created_at)
       SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, $1, g % 20 = 0, 'api',
              'shop@bench.example', 'Order ' || g, '<p>Your order ' || g || ' ships</p>',
              now() - (g::float8 / $4) * interval '30 days'
         FROM generate_series($2::bigint / 10, $3::bigint / 10) g
       ON CONFLICT DO NOTHING`,
      [projectId, from, to, ACTIVITIES / 10],
    );
    await sql(
      `INSERT INTO activities (id, project_id, email_message_id, is_test, recipient, status, created_at, updated_at,
                               sent_at, delivered_at, opened_first_at, clicked_first_at, bounced_at, bounce_type,
                               complained_at, failed_at, failure_reason)
       SELECT gen_random_uuid(), $1, ('00000000-0000-4000-8000-' || lpad(to_hex(g / 10), 12, '0'))::uuid,
              (g / 10) % 20 = 0, 'user' || (g % 1000000) || '@example.org', s.status, at, at,
              CASE WHEN s.status <> 'failed' THEN at + interval '1 second' END,
              CASE WHEN s.status IN ('delivered', 'opened', 'clicked', 'complained') THEN at + interval '3 seconds' END,
              CASE WHEN s.status IN ('opened', 'clicked') THEN at + interval '1 hour' END,
              CASE WHEN s.status = 'clicked' THEN at + interval '65 minutes' END,
              CASE WHEN s.status = 'bounced' THEN at + interval '3 seconds' END,
              CASE WHEN s.status = 'bounced' THEN 'Permanent' END,
              CASE WHEN s.status = 'complained' THEN at + interval '1 day' END,
              CASE WHEN s.status = 'failed' THEN at + interval '1 second' END,
              CASE WHEN s.status = 'failed' THEN 'provider_rejected' END
         FROM generate_series($2::bigint, $3::bigint) g
         CROSS JOIN LATERAL (SELECT now() - (g::float8 / $4) * interval '30 days' AS at) t
         CROSS JOIN LATERAL (SELECT CASE
              WHEN g % 1000 = 7 THEN 'complained' WHEN g % 100 < 3 THEN 'bounced' WHEN g % 100 = 3 THEN 'failed'
              WHEN g % 100 < 20 THEN 'opened' WHEN g % 100 < 25 THEN 'clicked' WHEN g % 100 < 27 THEN 'sent'
              ELSE 'delivered' END AS status) s`,
      [projectId, from, to, ACTIVITIES],
    );
    // the delivered ones' provider event (the detail page's timeline)
    await sql(
      `INSERT INTO email_events (id, project_id, activity_id, type, is_test, occurred_at)
       SELECT gen_random_uuid(), project_id, id, 'delivered', is_test, delivered_at FROM activities
        WHERE project_id = $1 AND delivered_at IS NOT NULL AND created_at <= now() - ($2::float8 / $4) * interval '30 days'
          AND created_at > now() - (($3::float8 + 1) / $4) * interval '30 days'`,
      [projectId, from, to, ACTIVITIES],
    );
    process.stdout.write(
      `  activities ${(to + 1).toLocaleString()} / ${ACTIVITIES.toLocaleString()} (${((Date.now() - c) / 1000).toFixed(0)} s)\n`,
    );
  }
  for (let from = 0; from < LEADS; from += CHUNK) {
    const to = Math.min(LEADS, from + CHUNK) - 1;
    await sql(
      `INSERT INTO leads (id, project_id, email, email_normalized, first_name, attributes, tags, subscription, source,
                          created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'user' || g || '@example.org', 'user' || g || '@example.org', 'User ' || g,
              jsonb_build_object('plan', CASE WHEN g % 10 = 0 THEN 'pro' ELSE 'free' END, 'orders', g % 17),
              CASE WHEN g % 50 = 0 THEN ARRAY['vip', 'newsletter'] WHEN g % 3 = 0 THEN ARRAY['newsletter']
                   ELSE ARRAY[]::text[] END,
              CASE WHEN g % 9 = 0 THEN 'unsubscribed' ELSE 'subscribed' END, 'import',
              now() - (g::float8 / $4) * interval '365 days', now()
         FROM generate_series($2::bigint, $3::bigint) g
       ON CONFLICT DO NOTHING`,
      [projectId, from, to, LEADS],
    );
  }
  await sql("ANALYZE activities");
  await sql("ANALYZE email_messages");
  await sql("ANALYZE email_events");
  await sql("ANALYZE leads");
  await sql("ANALYZE activity_stats_hourly");
  console.log(`seeded in ${((Date.now() - t0) / 60_000).toFixed(1)} min`);
}

async function project(): Promise<ProjectId> {
  if (!process.argv.includes("--fresh") && fs.existsSync(FACTS)) {
    const f = JSON.parse(fs.readFileSync(FACTS, "utf8")) as { project_id: string; activities: number };
    const { rows } = await sql("SELECT 1 FROM projects WHERE id = $1", [f.project_id]);
    if (rows.length && f.activities === ACTIVITIES) {
      console.log(`reusing the seeded project ${f.project_id} (${f.activities.toLocaleString()} activities)`);
      return projectIdOf(f.project_id);
    }
  }
  const r = await request(`${d.internal_url}/admin/projects`, {
    method: "POST",
    headers: { ...ADMIN, "content-type": "application/json" },
    body: JSON.stringify({ name: `bench-dashboard ${new Date().toISOString()}` }),
    dispatcher: agent,
  });
  const body = (await r.body.json()) as { project: { id: string } };
  const id = projectIdOf(body.project.id);
  console.log(
    `seeding project ${id}: ${ACTIVITIES.toLocaleString()} activities, ${LEADS.toLocaleString()} leads`,
  );
  await seed(id);
  fs.writeFileSync(FACTS, JSON.stringify({ project_id: id, activities: ACTIVITIES }));
  return id;
}

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

async function main() {
  const projectId = await project();
  const base = `/admin/projects/${projectId}`;
  // a recipient, an activity and a deep cursor of this project, found once
  const first = await adminGet(`${base}/activities?limit=50`);
  if (first.status !== 200) throw new Error(`activities: ${first.status} ${JSON.stringify(first.body)}`);
  const activityId = first.body.activities[0].id as string;
  const recipient = first.body.activities[0].recipient as string;
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++)
    cursor = (await adminGet(`${base}/activities?limit=50${cursor ? `&cursor=${cursor}` : ""}`)).body
      .next_cursor as string;
  const [at, id] = Buffer.from(cursor!, "base64url").toString().split("|");
  const deep = { createdAt: new Date(at!), id: id! };
  const now = new Date();
  const pages: { name: string; goal: number; api: string; raw: () => Promise<unknown> }[] = [
    {
      name: "activity, first page",
      goal: 200,
      api: `${base}/activities?limit=50`,
      raw: () => listActivities(db, projectId, { isTest: false, limit: 50 }),
    },
    {
      name: "activity, bounced",
      goal: 200,
      api: `${base}/activities?limit=50&status=bounced`,
      raw: () => listActivities(db, projectId, { isTest: false, statuses: ["bounced"], limit: 50 }),
    },
    {
      name: "activity, one recipient",
      goal: 200,
      api: `${base}/activities?limit=50&recipient=${encodeURIComponent(recipient)}`,
      raw: () => listActivities(db, projectId, { isTest: false, recipient, limit: 50 }),
    },
    {
      name: "activity, 21st page",
      goal: 200,
      api: `${base}/activities?limit=50&cursor=${cursor}`,
      raw: () => listActivities(db, projectId, { isTest: false, after: deep, limit: 50 }),
    },
    {
      name: "activity detail",
      goal: 200,
      api: `${base}/activities/${activityId}`,
      raw: () => findActivityDetail(db, projectId, activityId),
    },
    {
      name: "overview, 30 days",
      goal: 300,
      api: `${base}/overview?range=30d`,
      raw: () =>
        activityCountsSeries(db, projectId, {
          isTest: false,
          since: new Date(now.getTime() - 29 * 86_400_000),
          until: now,
          bucket: "day",
          timeZone: "UTC",
        }),
    },
    {
      name: "overview, 24 hours",
      goal: 300,
      api: `${base}/overview?range=24h`,
      raw: () =>
        activityCountsSeries(db, projectId, {
          isTest: false,
          since: new Date(now.getTime() - 23 * 3_600_000),
          until: now,
          bucket: "hour",
          timeZone: "UTC",
        }),
    },
    {
      name: "leads, first page",
      goal: 200,
      api: `${base}/leads?per_page=50`,
      raw: () =>
        sql("SELECT * FROM leads WHERE project_id = $1 ORDER BY created_at DESC, id DESC LIMIT 50", [
          projectId,
        ]),
    },
    {
      name: "leads, tag vip",
      goal: 200,
      api: `${base}/leads?per_page=50&tag=vip`,
      raw: () =>
        sql(
          "SELECT * FROM leads WHERE project_id = $1 AND tags @> ARRAY['vip'] ORDER BY created_at DESC, id DESC LIMIT 50",
          [projectId],
        ),
    },
  ];

  const groups = stackGroups(PORT_OFFSET).filter((g) => ["public-api", "postgresql"].includes(g.name));
  console.log(`\n${N} sequential requests each (after 3 warm-ups)`);
  console.log(
    "page".padEnd(26) +
      "API p50".padStart(10) +
      "API p95".padStart(10) +
      "goal".padStart(8) +
      "raw p50".padStart(10) +
      "raw p95".padStart(10) +
      "  CPU ms/request (public-api, postgresql)",
  );
  let failed = 0;
  for (const p of pages) {
    const check = await adminGet(p.api);
    if (check.status !== 200) throw new Error(`${p.name}: ${check.status} ${JSON.stringify(check.body)}`);
    const before = snapshot(groups);
    const api = await time(N, () => adminGet(p.api));
    const cpu = cpuBetween(before, snapshot(groups));
    const raw = await time(N, p.raw);
    const p95 = percentile(api, 95);
    if (p95 >= p.goal) failed++;
    console.log(
      p.name.padEnd(26) +
        fmt(percentile(api, 50)).padStart(10) +
        fmt(p95).padStart(10) +
        `${p.goal}`.padStart(8) +
        fmt(percentile(raw, 50)).padStart(10) +
        fmt(percentile(raw, 95)).padStart(10) +
        `  ${((cpu.get("public-api") ?? 0) / (N + 3)).toFixed(2)}, ${((cpu.get("postgresql") ?? 0) / (N + 3)).toFixed(2)}` +
        (p95 >= p.goal ? "  over the goal" : ""),
    );
  }

  // the overview without the roll-up: count the activities per day (what the triggers spare every request)
  const naive = await time(3, () =>
    sql(
      `SELECT date_trunc('day', sent_at) AS day, count(*) AS sent, count(delivered_at) AS delivered,
              count(bounced_at) AS bounced, count(complained_at) AS complained
         FROM activities WHERE project_id = $1 AND is_test = false AND sent_at >= now() - interval '30 days'
        GROUP BY 1`,
      [projectId],
    ),
  );
  console.log(
    `\noverview without the roll-up (counting activities per day, 30 days): p50 ${fmt(percentile(naive, 50))} of 3`,
  );
  const { rows } = await sql("SELECT count(*)::int AS n FROM activity_stats_hourly WHERE project_id = $1", [
    projectId,
  ]);
  console.log(`roll-up rows of the project: ${rows[0].n} (hours × modes × writing backends)`);
  await db.close();
  await agent.close();
  if (failed) {
    console.log(`${failed} page(s) over their goal`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
