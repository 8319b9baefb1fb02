/**
 * bench/campaigns (issue 24). Against a running stack (`pnpm start`; STACK_PORT_OFFSET / STACK_STATE_DIR /
 * DATABASE_URL for a stack beside another one). Parts (`--only materialise|cycle|rate`):
 *   1. materialise: a campaign over 1,000,000 leads (seeded once by the bench in a project of its own): the ledger
 *      write as campaign-dispatcher runs it (`materialiseCampaign`: the INSERT … SELECT, the exclusion counts and
 *      the status move), next to the same INSERT … SELECT run raw through pg. Both rolled back. Goal within 2×.
 *   2. cycle: dispatch cycles of 500 recipients as the running campaign-dispatcher does them (its
 *      campaign_dispatch_cycle_seconds histogram: lock, checks, claim, variables, accept, outbox, commit), on a
 *      campaign of 10,000 and one of 1,000,000 recipients, next to the same SQL done raw through pg plus the
 *      publish of its 10 messages raw through amqplib with confirms. Goal within 2× raw, and flat (within 20%)
 *      between the two ledger sizes. Start the stack with `SEND_RATE_PER_SECOND=0 pnpm start` for parts 1 and 2.
 *   3. rate (start the stack with `SEND_RATE_PER_SECOND=200 pnpm start`): a 20,000-recipient campaign at the
 *      provider limit of 200/s (simulator latency 0): the rate the simulator saw over the campaign's full seconds,
 *      probes included (goal ≥ 98% of 200), its busiest calendar and sliding second (never above 200), and CPU ms
 *      per send per process; meanwhile a /v1/send-email every 250 ms, timed to its arrival at the provider (read
 *      after the run): p50 and p99 (goal p99 < 2 s). `--leads 20000` seeds only what this part needs.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development campaigns/run.ts [--only …] [--leads 1000000]
 */
import { randomUUID } from "node:crypto";
import amqp from "amqplib";
import pg from "pg";
import { Exchanges, projectIdOf } from "@emailsvc/contracts";
import { createDb, materialiseCampaign, materialiseSql, withTransaction } from "@emailsvc/db";
import { cpuBetween, pidListeningOn, snapshot, stackGroups } from "../lib/proc-cpu";
import { DATABASE_URL, demo, numArg, percentile, RABBITMQ_URL } from "../lib/stack";

const d = demo();
const LEADS = numArg("leads", 1_000_000);
const OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);
const API = `http://127.0.0.1:${3001 + OFFSET}`;
const DISPATCHER_METRICS = `http://127.0.0.1:${3004 + OFFSET}/metrics`;
const ADMIN = `${d.internal_url}/admin`;
const only = (() => {
  const i = process.argv.indexOf("--only");
  return i >= 0 ? process.argv[i + 1] : undefined;
})();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The fields of the admin API's answers the bench reads. */
interface AdminAnswer {
  project: { id: string };
  campaign: { id: string; status: string };
  live: { key: string };
}

async function admin(method: string, route: string, body?: unknown): Promise<AdminAnswer> {
  const res = await fetch(`${ADMIN}${route}`, {
    method,
    headers: { authorization: `Bearer ${d.admin_token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as AdminAnswer;
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${JSON.stringify(json).slice(0, 400)}`);
  return json;
}

const client = new pg.Client({ connectionString: DATABASE_URL });

/**
 * The bench's own project (found again by name): a postal address, a sender on a domain registered DKIM-verified
 * (the row domain-service writes once DNS checks pass), and `LEADS` subscribed leads, the first 10,000 tagged
 * `ten-k`, seeded set-based once.
 */
async function benchProject(): Promise<{ projectId: string; sender: string; liveKey: string }> {
  const name = `bench campaigns ${LEADS}`;
  const found = await client.query<{ id: string }>("SELECT id FROM projects WHERE name = $1", [name]);
  let projectId = found.rows[0]?.id;
  const domain = `bench-campaigns-${LEADS}.example.com`;
  const sender = `news@${domain}`;
  if (!projectId) {
    const created = await admin("POST", "/projects", { name, postal_address: "1 Bench Road, Benchville" });
    projectId = created.project.id;
    await admin("POST", `/projects/${projectId}/senders`, { email: sender, name: "Bench" });
    await client.query(
      `INSERT INTO domain_identities (id, project_id, domain, domain_unicode, status, domain_verified, dkim_verified,
                                      verification_token, dkim_tokens, mail_from_domain, active_domain, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $2, 'verified', true, true, 't', '{}', 'mail.' || $2, $2, now())`,
      [projectId, domain],
    );
  }
  const have = (await client.query("SELECT count(*)::int AS n FROM leads WHERE project_id = $1", [projectId]))
    .rows[0].n as number;
  if (have < LEADS) {
    console.log(`seeding ${LEADS - have} leads…`);
    const t = performance.now();
    for (let from = have + 1; from <= LEADS; from += 100_000) {
      await client.query(
        `INSERT INTO leads (id, project_id, email, email_normalized, first_name, attributes, tags, subscription, source, updated_at)
         SELECT gen_random_uuid(), $1, e, e, 'Name' || i, jsonb_build_object('plan', 'gold'),
                CASE WHEN i <= 10000 THEN ARRAY['ten-k'] ELSE '{}' END, 'subscribed', 'api', now()
           FROM generate_series($2::int, $3::int) i, LATERAL (SELECT 'bench-' || i || '@bench.example.org' AS e) x`,
        [projectId, from, Math.min(LEADS, from + 99_999)],
      );
    }
    await client.query("ANALYZE leads");
    console.log(`  seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  // No warm-up ramp on the bench's domain: the bench measures the dispatch and the rate, and repeated runs on one
  // database would otherwise use up day 1's 50,000 campaign emails and wait for tomorrow.
  await admin("PUT", `/projects/${projectId}/warmups/${domain}`, { ramp: [] });
  const keys = await admin("GET", `/projects/${projectId}/keys`);
  return { projectId, sender, liveKey: keys.live.key };
}

const median = (xs: number[]) => percentile(xs, 50);
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

// ---- 1. materialise ----
async function materialise(projectId: string): Promise<void> {
  const db = createDb(DATABASE_URL, { max: 2 });
  const audience = { all_subscribed: true };
  const campaignRow = async (c: pg.ClientBase | import("pg").PoolClient, id: string) =>
    c.query(
      `INSERT INTO campaigns (id, project_id, name, subject, html, from_email, audience, status)
       VALUES ($1, $2, 'bench', 's', 'h', 'x@bench.example', $3::jsonb, 'initializing')`,
      [id, projectId, JSON.stringify(audience)],
    );
  const ours: number[] = [];
  const raw: number[] = [];
  let rows = 0;
  for (let round = 0; round < 3; round++) {
    // ours: campaign-dispatcher's materialiseCampaign, in a transaction rolled back (the campaign row is never
    // visible to the running dispatcher)
    await withTransaction(db.pool, async (c) => {
      const id = randomUUID();
      await campaignRow(c, id);
      const t = performance.now();
      const r = await materialiseCampaign(c, {
        id,
        project_id: projectIdOf(projectId),
        audience,
        email_type: "marketing",
      });
      ours.push(performance.now() - t);
      rows = r.inserted;
      throw Object.assign(new Error("rollback"), { rollback: true });
    }).catch((e: { rollback?: boolean }) => {
      if (!e.rollback) throw e;
    });
    // raw: the same INSERT … SELECT through a plain pg client
    await client.query("BEGIN");
    const id = randomUUID();
    await campaignRow(client, id);
    const sql = materialiseSql(audience, new Map(), "marketing");
    const t = performance.now();
    await client.query(sql.text, sql.values(projectIdOf(projectId), id));
    raw.push(performance.now() - t);
    await client.query("ROLLBACK");
  }
  await db.close();
  console.log(
    `1. materialise a campaign over ${rows.toLocaleString("en-US")} leads (median of 3, rolled back)`,
  );
  console.log(`   ours (INSERT … SELECT + exclusion counts + status): ${s(median(ours))}`);
  console.log(`   raw INSERT … SELECT through pg:                     ${s(median(raw))}`);
  console.log(`   ratio ${(median(ours) / median(raw)).toFixed(2)}× (goal ≤ 2×)`);
}

// ---- 2. cycle ----
async function cycleHistogram(): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(DISPATCHER_METRICS)).text();
  const get = (k: string) =>
    Number(
      new RegExp(
        `^campaign_dispatch_cycle_seconds_${k}\\{[^}]*outcome="dispatched"[^}]*\\} (\\S+)`,
        "m",
      ).exec(text)?.[1] ?? 0,
    );
  return { sum: get("sum"), count: get("count") };
}

/** Waits for the running dispatcher to write a campaign's ledger; returns the campaign. */
async function created(projectId: string, body: Record<string, unknown>): Promise<string> {
  const c = await admin("POST", `/projects/${projectId}/campaigns`, body);
  const id = c.campaign.id;
  for (;;) {
    const cur = (await admin("GET", `/projects/${projectId}/campaigns/${id}`)).campaign;
    if (cur.status !== "initializing") return id;
    await sleep(500);
  }
}

async function oursCycles(
  projectId: string,
  sender: string,
  audience: unknown,
  cycles: number,
): Promise<number> {
  // batch mode: one batch of 500 (one cycle) every 1.8 s
  const before = await cycleHistogram();
  const id = await created(projectId, {
    name: "bench cycle",
    subject: "Hi {{first_name}}",
    html: "<p>Hi {{first_name}}, {{plan}}</p>",
    sender_email: sender,
    audience,
    batch_size: 500,
    batch_interval_hours: 0.0005,
  });
  let after = before;
  while (after.count - before.count < cycles) {
    await sleep(500);
    after = await cycleHistogram();
  }
  await admin("POST", `/projects/${projectId}/campaigns/${id}/cancel`);
  return ((after.sum - before.sum) / (after.count - before.count)) * 1000;
}

/** The cycle's SQL and publish, raw: claim 500, message + activities + outbox, ledger to queued, commit, publish. */
async function rawCycles(projectId: string, campaignId: string, cycles: number): Promise<number> {
  const conn = await amqp.connect(RABBITMQ_URL);
  const ch = await conn.createConfirmChannel();
  const times: number[] = [];
  const made: string[] = [];
  for (let k = 0; k < cycles; k++) {
    const t = performance.now();
    await client.query("BEGIN");
    const { rows } = await client.query(
      `SELECT r.id, COALESCE(l.email, r.email) AS email, l.first_name, l.attributes, s.reason
         FROM (SELECT id, lead_id, email, project_id FROM campaign_recipients
                WHERE campaign_id = $1 AND status = 'pending' ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED) r
         LEFT JOIN leads l ON l.id = r.lead_id AND l.project_id = r.project_id
         LEFT JOIN suppressions s ON s.project_id = r.project_id AND s.email = lower(COALESCE(l.email, r.email))`,
      [campaignId],
    );
    const ids = rows.map((r) => r.id as string);
    const messageId = randomUUID();
    await client.query(
      `INSERT INTO email_messages (id, project_id, source, email_type, from_email, subject, html, campaign_id)
       VALUES ($1, $2, 'campaign', 'marketing', 'x@bench.example', 'Hi {{first_name}}', '<p>Hi</p>', $3)`,
      [messageId, projectId, campaignId],
    );
    await client.query(
      `INSERT INTO activities (id, project_id, email_message_id, campaign_id, email_type, recipient, data, status)
       SELECT a, $2, $3, $4, 'marketing', r, d, 'queued' FROM unnest($1::uuid[], $5::text[], $6::jsonb[]) AS x(a, r, d)`,
      [
        ids,
        projectId,
        messageId,
        campaignId,
        rows.map((r) => r.email),
        rows.map((r) => JSON.stringify({ first_name: r.first_name, plan: r.attributes?.plan })),
      ],
    );
    const payloads = Array.from({ length: Math.ceil(ids.length / 50) }, (_, i) =>
      JSON.stringify({ activityIds: ids.slice(i * 50, i * 50 + 50) }),
    );
    const outboxIds = payloads.map(() => randomUUID());
    await client.query(
      `INSERT INTO outbox_messages (id, exchange, routing_key, payload)
       SELECT i, 'bench.none', 'bench.raw', p::jsonb FROM unnest($1::uuid[], $2::text[]) AS x(i, p)`,
      [outboxIds, payloads],
    );
    await client.query(
      `UPDATE campaign_recipients r SET status = 'queued', dispatched_at = now() FROM unnest($1::uuid[]) AS x(id) WHERE r.id = x.id`,
      [ids],
    );
    await client.query("COMMIT");
    // published to a routing key nothing is bound to: confirmed by the broker, sent to no worker
    for (const p of payloads)
      ch.publish(Exchanges.emailCommands, "bench.raw", Buffer.from(p), { persistent: true });
    await ch.waitForConfirms();
    await client.query("DELETE FROM outbox_messages WHERE id = ANY($1::uuid[])", [outboxIds]);
    times.push(performance.now() - t);
    made.push(...ids);
  }
  await client.query("DELETE FROM activities WHERE id = ANY($1::uuid[])", [made]);
  await conn.close();
  return times.reduce((a, b) => a + b, 0) / times.length;
}

async function cycle(projectId: string, sender: string): Promise<void> {
  console.log("2. dispatch cycles of 500 recipients (mean of 5 each)");
  for (const [label, audience] of [
    ["10,000", { tags: ["ten-k"] }],
    [LEADS.toLocaleString("en-US"), { all_subscribed: true }],
  ] as const) {
    const ours = await oursCycles(projectId, sender, audience, 5);
    // the raw baseline works on a paused campaign of the same audience (the dispatcher leaves it alone)
    const id = await created(projectId, {
      name: "bench raw",
      subject: "s",
      html: "<p>h</p>",
      sender_email: sender,
      audience,
      start_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await admin("POST", `/projects/${projectId}/campaigns/${id}/pause`);
    const raw = await rawCycles(projectId, id, 5);
    await admin("POST", `/projects/${projectId}/campaigns/${id}/cancel`);
    console.log(
      `   ledger of ${label}: ours ${ours.toFixed(1)} ms, raw SQL + publish ${raw.toFixed(1)} ms, ratio ${(ours / raw).toFixed(2)}× (goal ≤ 2×)`,
    );
  }
}

// ---- 3. rate fidelity and transactional latency ----
async function rate(projectId: string, sender: string, liveKey: string): Promise<void> {
  const N = numArg("n", 20_000);
  const sim = d.simulator_url;
  await fetch(`${sim}/_sim/config`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    // every message of the run kept, for the sliding-second count and the probes' arrival times
    body: JSON.stringify({ latencyMs: 0, maxSendRate: null, maxMessagesKept: N + 1_000 }),
  });
  await fetch(`${sim}/_sim/reset`, { method: "POST" });
  const tag = `rate-${Date.now().toString(36)}`;
  await client.query(
    `UPDATE leads SET tags = array_append(tags, $2) WHERE project_id = $1 AND id IN (
       SELECT id FROM leads WHERE project_id = $1 ORDER BY email_normalized LIMIT $3)`,
    [projectId, tag, N],
  );
  const id = await created(projectId, {
    name: "bench rate",
    subject: "Hi",
    html: "<p>Hi {{first_name}}</p>",
    sender_email: sender,
    audience: { tags: [tag] },
  });
  // The probes' arrivals are read once the campaign is over, from the simulator's own arrival times: polling for
  // each probe while the campaign ran (every 25 ms, a scan of all kept messages each time) loaded the very
  // process whose arrival times the rate is judged by.
  const probesSent: { to: string; t0: number }[] = [];
  let done = false;
  const probes = (async () => {
    for (let i = 0; !done; i++) {
      const to = `probe-${tag}-${i}@example.org`;
      const t0 = Date.now();
      const res = await fetch(`${API}/v1/send-email`, {
        method: "POST",
        headers: { authorization: `Bearer ${liveKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          recipient_email: to,
          sender_email: sender,
          subject: "code",
          html_body: "<p>1</p>",
        }),
      });
      if (res.status !== 200) throw new Error(`send-email ${res.status}`);
      probesSent.push({ to, t0 });
      await sleep(250);
    }
  })();
  const groups = [
    ...stackGroups(OFFSET),
    {
      name: "campaign-dispatcher",
      find: () => [pidListeningOn(3004 + OFFSET)].filter((p) => p !== undefined),
    },
  ];
  const cpu0 = snapshot(groups);
  for (;;) {
    const c = (await admin("GET", `/projects/${projectId}/campaigns/${id}`)).campaign;
    if (c.status === "completed") break;
    await sleep(2000);
  }
  done = true;
  await probes;
  await sleep(1000);
  const cpu = cpuBetween(cpu0, snapshot(groups));
  const stats = (await (await fetch(`${sim}/_sim/stats`)).json()) as {
    perSecond: Record<string, number>;
    maxPerSecond: number;
    throttledCount: number;
    sendCount: number;
  };
  const arrivals = (
    (await (await fetch(`${sim}/_sim/messages`)).json()) as {
      messages: { to: string[]; receivedAtMs: number }[];
    }
  ).messages;
  const arrivedAt = new Map(arrivals.map((m) => [m.to[0], m.receivedAtMs]));
  const latencies = probesSent.flatMap((p) => {
    const at = arrivedAt.get(p.to);
    return at === undefined ? [] : [at - p.t0];
  });
  // the busiest sliding second: the most arrivals within any 1,000 ms (a calendar second is one such window)
  const times = arrivals.map((m) => m.receivedAtMs).sort((a, b) => a - b);
  let slidingMax = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 1000) j++;
    slidingMax = Math.max(slidingMax, i - j + 1);
  }
  // The rate over the campaign's own seconds: from its first send to its last, those two (partial) seconds left out,
  // every send the provider got in them counted (campaign and probes: one limit for both lanes). Counted, as before,
  // over every second between the run's first and last message, the probes' seconds after the campaign's last send
  // (until the bench saw it completed: up to a dispatcher tick and a poll later, ~4 sends each), and those before
  // its first, were averaged in as if the campaign had been sending then.
  const perSecond = new Map<number, number>();
  for (const t of times) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
  const campaignTimes = arrivals.filter((m) => !m.to[0]?.startsWith("probe-")).map((m) => m.receivedAtMs);
  const firstSecond = Math.floor(Math.min(...campaignTimes) / 1000);
  const lastSecond = Math.floor(Math.max(...campaignTimes) / 1000);
  const full: number[] = [];
  for (let sec = firstSecond + 1; sec < lastSecond; sec++) full.push(perSecond.get(sec) ?? 0);
  const achieved = full.reduce((a, b) => a + b, 0) / full.length;
  const runSeconds = Object.entries(stats.perSecond)
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(1, -1)
    .map(([, n]) => n);
  const runRate = runSeconds.reduce((a, b) => a + b, 0) / runSeconds.length;
  console.log(`3. a ${N.toLocaleString("en-US")}-recipient campaign at 200/s (simulator latency 0)`);
  console.log(
    `   at the simulator: ${achieved.toFixed(1)}/s over the campaign's ${full.length} full seconds (${((achieved / 200) * 100).toFixed(1)}% of 200, goal ≥ 98%; over all ${runSeconds.length} full seconds of the run, probes after the campaign included: ${runRate.toFixed(1)}/s), busiest second ${stats.maxPerSecond}, busiest sliding second ${slidingMax}${times.length < stats.sendCount ? ` (of the last ${times.length} sends kept)` : ""} (goal ≤ 200), throttled ${stats.throttledCount}`,
  );
  console.log(
    `   per second: first ${full.slice(0, 4).join(", ")} … median ${median(full)}, lowest ${Math.min(...full)} … last ${full.slice(-4).join(", ")}; ${runSeconds.length - full.length} seconds of the run outside the campaign's`,
  );
  console.log(
    `   /v1/send-email to the provider during it: ${latencies.length} of ${probesSent.length} sends, p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${Math.max(...latencies)} ms (goal p99 < 2,000 ms)`,
  );
  const sends = N + probesSent.length;
  console.log(
    `   CPU ms per send: ${[...cpu]
      .filter(([, ms]) => ms > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([name, ms]) => `${name} ${(ms / sends).toFixed(3)}`)
      .join(", ")} (PostgreSQL and RabbitMQ counted whole)`,
  );
}

async function main(): Promise<void> {
  await client.connect();
  const { projectId, sender, liveKey } = await benchProject();
  if (!only || only === "materialise") await materialise(projectId);
  if (!only || only === "cycle") await cycle(projectId, sender);
  if (only === "rate") await rate(projectId, sender, liveKey);
  await client.end();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
