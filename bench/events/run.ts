/**
 * bench/events (issue 23). Against a running stack (`pnpm start`; STACK_PORT_OFFSET / STACK_STATE_DIR /
 * DATABASE_URL for a stack beside another one):
 *   1. POST /v1/events, one event per request, 50 in flight: events/s, next to a bare node:http server (its own
 *      process) that parses the same JSON and answers 201, measured in the same run. Goal ≥ 2,000/s and ≥ 30%.
 *   2. POST /v1/events/bulk with 1,000 events: p50, next to the raw baseline through pg of the same rows (one lead
 *      upsert statement + one INSERT … SELECT FROM unnest). Goal within 2×.
 *   3. GET /v1/events on a project seeded with 1,000,000 events (no filter, email, event + since, page 1 and page
 *      1,000): p99 of sequential requests. Goal < 50 ms each.
 * CPU per item of each process (public-api, PostgreSQL's backends, this load generator) from /proc.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development events/run.ts [--n 5000] [--seed 1000000]
 *      [--only singles|bulk|listing]
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import pg from "pg";
import { request } from "undici";
import { DATABASE_URL, demo, fmt, numArg, percentile, post } from "../lib/stack";

const d = demo();
const N = numArg("n", 5000);
const SEED = numArg("seed", 1_000_000);
const OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);
const API = `http://127.0.0.1:${3001 + OFFSET}`;
const BARE_PORT = 3990 + (OFFSET % 9);
const AUTH = { Authorization: `Bearer ${d.live_key}`, "Content-Type": "application/json" };
const run = Date.now().toString(36);

async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

// ---- CPU from /proc: utime + stime of a process, in ms (USER_HZ = 100) ----
const ticks = (pid: number): number => {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
};
/** The pid listening on a TCP port (through /proc/net/tcp's socket inode and each process's fds). */
function pidOfPort(port: number): number | null {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"])
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c[1]?.endsWith(`:${hex}`) && c[3] === "0A") inodes.add(c[9]!);
    }
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)))
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(pid);
      }
    } catch {
      /* not ours to read */
    }
  return null;
}
const postgresPids = () =>
  fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/comm`, "utf8").trim() === "postgres";
      } catch {
        return false;
      }
    })
    .map(Number);
/** CPU ms per item of public-api, all postgres processes (other users' load included) and this process. */
async function cpuPerItem<T>(items: number, apiPid: number | null, fn: () => Promise<T>): Promise<T> {
  const pgs = postgresPids();
  const sum = () => pgs.reduce((s, p) => s + ticks(p), 0);
  const a0 = apiPid ? ticks(apiPid) : 0;
  const p0 = sum();
  const s0 = process.cpuUsage();
  const out = await fn();
  const s1 = process.cpuUsage(s0);
  const per = (ms: number) => `${(ms / items).toFixed(3)} ms`;
  console.log(
    `    CPU per item: public-api ${apiPid ? per(ticks(apiPid) - a0) : "n/a"}, postgres ${per(sum() - p0)}, ` +
      `load generator ${per((s1.user + s1.system) / 1000)}`,
  );
  return out;
}

// ---- 1. single events vs a bare node:http server ----
const BARE = `
const http = require("node:http");
http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const e = JSON.parse(body);
    res.writeHead(201, { "content-type": "application/json" });
    res.end(JSON.stringify({ success: true, event_id: "x", recipient_id: "y", created_lead: false, email: e.email }));
  });
}).listen(${BARE_PORT}, "127.0.0.1", () => process.send && process.send("up"));`;

const eventBody = (i: number) =>
  JSON.stringify({
    email: `bench-${run}-${i % 500}@example.org`,
    event: "page_view",
    properties: { i, path: "/p" },
  });

async function rate(url: string, n: number): Promise<number> {
  const t = performance.now();
  await pool(n, 50, async (i) => {
    const r = await post(url, eventBody(i), AUTH);
    if (r.status !== 201) throw new Error(`${url} answered ${r.status}: ${r.text.slice(0, 200)}`);
  });
  return n / ((performance.now() - t) / 1000);
}

async function singles(apiPid: number | null): Promise<void> {
  const bare = spawn(process.execPath, ["-e", BARE], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  await new Promise((r) => bare.once("message", r));
  try {
    await rate(`${API}/v1/events`, 1000); // warm-up
    await rate(`http://127.0.0.1:${BARE_PORT}/`, 1000);
    const bareRate = await rate(`http://127.0.0.1:${BARE_PORT}/`, N);
    console.log(`1. POST /v1/events, ${N} requests, 50 in flight`);
    const ours = await cpuPerItem(N, apiPid, () => rate(`${API}/v1/events`, N));
    console.log(
      `    ours ${ours.toFixed(0)} events/s, bare node:http ${bareRate.toFixed(0)}/s → ${((100 * ours) / bareRate).toFixed(0)}%`,
    );
  } finally {
    bare.kill();
  }
}

// ---- 2. bulk of 1,000 vs raw pg ----
async function bulk(db: pg.Pool, apiPid: number | null): Promise<void> {
  const ROUNDS = 20;
  const batch = (r: number) =>
    Array.from({ length: 1000 }, (_, i) => ({
      email: `bulk-${run}-${i % 200}@example.org`,
      event: "purchase",
      properties: { r, i, sku: `sku-${i}` },
    }));
  const ours: number[] = [];
  await cpuPerItem(ROUNDS * 1000, apiPid, async () => {
    for (let r = 0; r < ROUNDS + 2; r++) {
      const t = performance.now();
      const res = await post(`${API}/v1/events/bulk`, JSON.stringify({ events: batch(r) }), AUTH);
      if (res.status !== 201) throw new Error(`bulk answered ${res.status}: ${res.text.slice(0, 200)}`);
      if (r >= 2) ours.push(performance.now() - t);
    }
  });
  const raw: number[] = [];
  for (let r = 0; r < ROUNDS + 2; r++) {
    const rows = batch(r);
    const t = performance.now();
    const emails = [...new Set(rows.map((e) => e.email))];
    const leads = await db.query<{ id: string; email_normalized: string }>(
      `WITH ins AS (INSERT INTO leads (id, project_id, email, email_normalized, source)
         SELECT gen_random_uuid(), $1, e, e, 'event' FROM unnest($2::text[]) e
         ON CONFLICT (project_id, email_normalized) DO NOTHING RETURNING id, email_normalized)
       SELECT id, email_normalized FROM ins UNION ALL
       SELECT id, email_normalized FROM leads WHERE project_id = $1 AND email_normalized = ANY($2::text[])`,
      [d.project_id, emails],
    );
    const byEmail = new Map(leads.rows.map((l) => [l.email_normalized, l.id]));
    await db.query(
      `INSERT INTO lead_events (id, project_id, lead_id, name, properties, occurred_at)
       SELECT gen_random_uuid(), $1, l, n, p, now() FROM unnest($2::uuid[], $3::text[], $4::jsonb[]) AS t(l, n, p)`,
      [
        d.project_id,
        rows.map((e) => byEmail.get(e.email)),
        rows.map((e) => e.event),
        rows.map((e) => JSON.stringify(e.properties)),
      ],
    );
    if (r >= 2) raw.push(performance.now() - t);
  }
  const p50 = percentile(ours, 50);
  const r50 = percentile(raw, 50);
  console.log(`2. POST /v1/events/bulk, 1,000 events, ${ROUNDS} rounds`);
  console.log(
    `    p50 ${fmt(p50)} (p99 ${fmt(percentile(ours, 99))}); raw pg ${fmt(r50)} → ${(p50 / r50).toFixed(2)}×`,
  );
}

// ---- 3. GET /v1/events on 1,000,000 events ----
async function listing(db: pg.Pool, apiPid: number | null): Promise<void> {
  const project = (
    await post(`${d.internal_url}/admin/projects`, JSON.stringify({ name: `events bench ${run}` }), {
      Authorization: `Bearer ${d.admin_token}`,
      "Content-Type": "application/json",
    })
  ).text;
  const { project: p, live_key: key } = JSON.parse(project) as { project: { id: string }; live_key: string };
  const t0 = performance.now();
  // 10,000 leads, 1,000,000 events over the last 365 days, 20 event names
  await db.query(
    `INSERT INTO leads (id, project_id, email, email_normalized, source)
     SELECT gen_random_uuid(), $1, 'seed' || g || '@example.org', 'seed' || g || '@example.org', 'event'
       FROM generate_series(1, 10000) g`,
    [p.id],
  );
  await db.query(
    `INSERT INTO lead_events (id, project_id, lead_id, name, properties, occurred_at)
     SELECT gen_random_uuid(), $1, l.ids[1 + (g % 10000)], 'event_' || (g % 20), jsonb_build_object('g', g),
            now() - ((g::bigint * 31) % 31536000) * interval '1 second'
       FROM generate_series(1, $2::int) g,
            (SELECT array_agg(id ORDER BY email) AS ids FROM leads WHERE project_id = $1) l`,
    [p.id, SEED],
  );
  await db.query("VACUUM ANALYZE lead_events");
  await db.query("VACUUM ANALYZE leads");
  console.log(
    `3. GET /v1/events on ${SEED.toLocaleString("en")} events (seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
  const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
  const cases: [string, string][] = [
    ["no filter, page 1", ""],
    ["no filter, page 1,000", "page=1000"],
    ["email, page 1", "email=seed42@example.org"],
    ["event + since, page 1", `event=event_7&since=${since}`],
    [
      "event + since, page 1,000",
      `event=event_7&since=${encodeURIComponent(new Date(Date.now() - 300 * 86_400_000).toISOString())}&page=1000`,
    ],
  ];
  for (const [name, q] of cases) {
    const times: number[] = [];
    let total = 0;
    await cpuPerItem(200, apiPid, async () => {
      for (let i = 0; i < 220; i++) {
        const t = performance.now();
        const r = await request(`${API}/v1/events?${q}`, { headers: { Authorization: `Bearer ${key}` } });
        const body = (await r.body.json()) as { pagination: { total: number } };
        if (r.statusCode !== 200) throw new Error(`GET answered ${r.statusCode}`);
        total = body.pagination.total;
        if (i >= 20) times.push(performance.now() - t);
      }
    });
    console.log(
      `    ${name.padEnd(26)} p50 ${fmt(percentile(times, 50))}  p99 ${fmt(percentile(times, 99))}  (total ${total})`,
    );
  }
  await db.query("DELETE FROM lead_events WHERE project_id = $1", [p.id]);
  await db.query("DELETE FROM leads WHERE project_id = $1", [p.id]);
}

async function main(): Promise<void> {
  const apiPid = pidOfPort(3001 + OFFSET);
  const db = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  try {
    const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
    if (!only || only === "singles") await singles(apiPid);
    if (!only || only === "bulk") await bulk(db, apiPid);
    if (!only || only === "listing") await listing(db, apiPid);
  } finally {
    await db.end();
  }
  console.log(
    `(public-api pid ${apiPid ?? "not found"}; postgres figures include every database of the machine)`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
