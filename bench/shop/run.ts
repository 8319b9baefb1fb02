/**
 * bench/shop (issue 27): signed shop webhooks over the three topics from 50 concurrent clients, against a running
 * stack (`pnpm start`; STACK_PORT_OFFSET / STACK_STATE_DIR / DATABASE_URL for a stack beside another one).
 *   - accepted/s and p50/p99 of POST /webhooks/shop/:topic on shop-ingest's port (and through the gateway with
 *     --gateway), next to a raw baseline in the same run: HMAC verification plus one INSERT per webhook through
 *     `pg`, 50 in flight, into a table of the same shape;
 *   - processed/s: from the first request to the last delivery applied by the topic consumers;
 *   - CPU ms per webhook of each process, read from /proc.
 * Both are warmed up first with 2,000 webhooks of their own (`--warmup`), not measured; the stack's are processed
 * before the measured run starts.
 * Goal: ≥ 1,000 accepted/s, p99 < 50 ms, ≥ 500 processed/s.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development shop/run.ts [--n 20000] [--warmup 2000]
 *      [--gateway]
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import os from "node:os";
import pg from "pg";
import { cpuBetween, pidListeningOn, snapshot, stackGroups, type ProcGroup } from "../lib/proc-cpu";
import { shopWebhook } from "../lib/shop-webhooks";
import { DATABASE_URL, demo, fmt, numArg, percentile, post } from "../lib/stack";

const d = demo();
const N = numArg("n", 20_000);
// Warm-up, not measured (as send-pipeline's): JIT compilation, first connections and cold caches made the first
// 2,000 requests' p99 148 ms against 52–101 ms for each later 2,000 of one run.
const WARMUP = numArg("warmup", 2000);
const CONCURRENCY = 50;
const OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);
const SHOP_PORT = 3009 + OFFSET;
const BASE = process.argv.includes("--gateway") ? d.base_url : `http://127.0.0.1:${SHOP_PORT}`;
const run = Date.now().toString(36);
const SECRET = `bench-secret-${run}`;
const webhook = (i: number) => shopWebhook(run, i);

async function admin(method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${d.internal_url}/admin${route}`, {
    method,
    headers: { "x-admin-token": d.admin_token, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const sign = (raw: string) => createHmac("sha256", SECRET).update(raw).digest("base64");

async function pool<T>(n: number, fn: (i: number) => Promise<T>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** The raw baseline: verify the HMAC of the body and INSERT it, one statement per webhook, 50 in flight. */
async function raw(db: pg.Pool, bodies: { topic: string; raw: string; hmac: string }[]) {
  // a table of the same shape (columns, unique index): the pool's connections all see it, unlike a TEMP table
  const table = `bench_shop_raw_${run}`;
  await db.query(`CREATE TABLE ${table} (LIKE shop_webhook_events INCLUDING ALL)`);
  const latencies: number[] = [];
  const t0 = performance.now();
  await pool(bodies.length, async (i) => {
    const b = bodies[i]!;
    const s = performance.now();
    const mac = createHmac("sha256", SECRET).update(b.raw).digest();
    if (!timingSafeEqual(mac, Buffer.from(b.hmac, "base64"))) throw new Error("bad hmac");
    await db.query(
      `INSERT INTO ${table} (id, project_id, shop_id, webhook_id, topic, payload)
       VALUES (gen_random_uuid(), $1, $1, $2, $3, $4::jsonb)`,
      [d.project_id, `raw-${run}-${i}`, b.topic, b.raw],
    );
    latencies.push(performance.now() - s);
  });
  const rate = bodies.length / ((performance.now() - t0) / 1000);
  await db.query(`DROP TABLE ${table}`);
  return { rate, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  const db = new pg.Pool({ connectionString: DATABASE_URL, max: 20 });
  const domain = `bench-${run}.myshop.test`;
  const connected = await admin("POST", `/projects/${d.project_id}/shops`, {
    shop_domain: domain,
    secret: SECRET,
  });
  const shopId = (connected.shop as { id: string }).id;
  const bodies = Array.from({ length: N }, (_, i) => {
    const w = webhook(i);
    return { ...w, hmac: sign(w.raw) };
  });
  // the warm-up's buyers come after the measured ones (their own carts, checkouts and orders)
  const warm = Array.from({ length: WARMUP }, (_, i) => {
    const w = webhook(N + i);
    return { ...w, hmac: sign(w.raw) };
  });
  try {
    if (warm.length) await raw(db, warm);
    const baseline = await raw(db, bodies);
    const groups: ProcGroup[] = [
      ...stackGroups(OFFSET),
      {
        name: "shop-ingest",
        find: () => {
          const pid = pidListeningOn(SHOP_PORT);
          return pid ? [pid] : [];
        },
      },
    ];
    /** Posts `list` (50 in flight), each with the webhook id `${prefix}${i}`; resolves with each one's latency. */
    const accept = async (list: typeof bodies, prefix: string): Promise<number[]> => {
      const latencies: number[] = [];
      await pool(list.length, async (i) => {
        const b = list[i]!;
        const s = performance.now();
        const r = await post(`${BASE}/webhooks/shop/${b.topic}`, b.raw, {
          "content-type": "application/json",
          "x-shop-shop-domain": domain,
          "x-project-id": d.project_id,
          "x-shop-webhook-id": `${prefix}${i}`,
          "x-shop-hmac-sha256": b.hmac,
        });
        if (r.status !== 200) throw new Error(`webhook ${i} answered ${r.status}: ${r.text.slice(0, 200)}`);
        latencies.push(performance.now() - s);
      });
      return latencies;
    };
    const processed = async () => {
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM shop_webhook_events WHERE shop_id = $1 AND processed_at IS NULL",
          [shopId],
        );
        if (rows[0]!.n === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    if (warm.length) {
      await accept(warm, `${run}-warm-`);
      await processed();
    }
    const before = snapshot(groups);
    const ownBefore = process.cpuUsage();
    const load = os.loadavg()[0]!;
    const t0 = performance.now();
    const latencies = await accept(bodies, `${run}-`);
    const acceptSeconds = (performance.now() - t0) / 1000;
    await processed();
    const processSeconds = (performance.now() - t0) / 1000;
    const cpu = cpuBetween(before, snapshot(groups));
    const own = process.cpuUsage(ownBefore);
    // the load generator runs on the same cores: its CPU is taken from the stack it measures
    cpu.set("load generator", (own.user + own.system) / 1000);
    console.log(
      `bench/shop: ${N} signed webhooks (cart/update, checkout/create, order/create), ${CONCURRENCY} in flight, to ${BASE}`,
    );
    console.log(
      `  accepted   ${(N / acceptSeconds).toFixed(0)}/s   p50 ${fmt(percentile(latencies, 50))}   p99 ${fmt(percentile(latencies, 99))}   (goal ≥ 1,000/s, p99 < 50 ms)`,
    );
    console.log(
      `  raw        ${baseline.rate.toFixed(0)}/s   p50 ${fmt(baseline.p50)}   p99 ${fmt(baseline.p99)}   (HMAC + one INSERT through pg)` +
        `   → ${((100 * N) / acceptSeconds / baseline.rate).toFixed(0)}% of raw`,
    );
    console.log(
      `  processed  ${(N / processSeconds).toFixed(0)}/s   (first request to last delivery applied; goal ≥ 500/s)`,
    );
    console.log(
      `  CPU ms per webhook: ${[...cpu]
        .filter(([, ms]) => ms > 0)
        .map(([name, ms]) => `${name} ${(ms / N).toFixed(3)}`)
        .join(", ")}   (PostgreSQL and RabbitMQ: every user of them on this machine)`,
    );
    console.log(`  load average ${load.toFixed(1)} when the run started (${os.cpus().length} cores)`);
  } finally {
    await admin("DELETE", `/projects/${d.project_id}/shops/${shopId}`).catch(() => undefined);
    await db.end();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
