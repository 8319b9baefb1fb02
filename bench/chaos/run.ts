/**
 * bench/chaos (issue 47): is anything accepted lost, or sent twice, when every part of the system fails in turn
 * under mixed traffic? One command does it all, on servers of its own:
 *
 *   cd bench && pnpm exec tsx --conditions=development chaos/run.ts [--seconds 180] [--drain 300] [--rate 1]
 *     [--offset 700] [--keep]
 *
 *   1. starts a private PostgreSQL (initdb), Redis and RabbitMQ node on ports 5432/6379/5672/25672 + offset, in a
 *      temp folder (the machine's shared servers are never touched), and the whole stack on them (start.ts with
 *      STACK_STATE_DIR=.local-chaos, STACK_PORT_OFFSET=offset, supervision on, two replicas of send-worker and of
 *      campaign-dispatcher, the send-worker's reconcile window at 120 s);
 *   2. for `--seconds` (longer if the faults take longer), mixed traffic (traffic.ts): v1 single and template
 *      sends with Idempotency-Key and client retries (some replayed on purpose), batches, scheduled batches, a
 *      campaign spread over the run, custom events, signed shop webhooks, inbound replies (S3 + signed SNS), tracking
 *      hits, and the simulator's own provider notifications for every email;
 *   3. meanwhile the faults (faults.ts), evenly spread: a SIGKILL of every service process (replicas included), a
 *      RabbitMQ restart and close_all_connections, a PostgreSQL restart, a Redis restart, and stretches of the
 *      simulator answering throttling errors and 5xx;
 *   4. waits for the system to drain (`--drain` seconds at most), then checks every invariant from the database and
 *      the simulator and prints them as a table (invariants.ts); exits 1 when one fails.
 *
 * Everything it started is stopped at the end (`--keep`: the temp folder is kept, for its servers' logs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { Pool } from "pg";
import type { Demo } from "../lib/stack";
import { numArg } from "../lib/stack";
import { Client } from "./client";
import { buildFaults, runFaults } from "./faults";
import { startInfra } from "./infra";
import { checkInvariants, printTable } from "./invariants";
import { startReceiver } from "./receiver";
import { startStack } from "./stack";
import { type Ledger, runTraffic } from "./traffic";

const SECONDS = numArg("seconds", 180);
const DRAIN_S = numArg("drain", 300);
const RATE = numArg("rate", 1);
const OFFSET = numArg("offset", 700);
const STATE_DIR = ".local-chaos";
const KEEP = process.argv.includes("--keep");
const CAMPAIGN_LEADS = Math.round(150 * RATE);
const REPLY_TARGETS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(line);

async function admin(
  d: Demo,
  method: string,
  route: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${d.internal_url}/admin${route}`, {
    method,
    headers: { "x-admin-token": d.admin_token, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** What to undo, last first: the stack, then the private servers and their folder. */
const cleanups: (() => void | Promise<void>)[] = [];
async function cleanup(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!();
}

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chaos-"));
  log(`chaos: private PostgreSQL, Redis and RabbitMQ in ${dir}`);
  const infra = await startInfra(dir, {
    postgres: 5432 + OFFSET,
    rabbit: 5672 + OFFSET,
    rabbitDist: 25672 + OFFSET,
    redis: 6379 + OFFSET,
  });
  const root = path.resolve(__dirname, "../..");
  // a fresh database each run: the demo project (and its keys) are made anew
  fs.rmSync(path.join(root, STATE_DIR, "demo.json"), { force: true });
  cleanups.push(() => {
    infra.stop();
    if (!KEEP) fs.rmSync(dir, { recursive: true, force: true });
  });
  let stack: Awaited<ReturnType<typeof startStack>> | null = null;
  cleanups.push(async () => {
    log("chaos: stopping the stack and the private servers");
    await stack?.stop();
  });
  try {
    log(`chaos: starting the stack (${STATE_DIR}, port offset ${OFFSET})`);
    stack = await startStack({
      stateDir: STATE_DIR,
      offset: OFFSET,
      readyTimeoutMs: 300_000,
      env: {
        DATABASE_URL: infra.databaseUrl,
        RABBITMQ_URL: infra.rabbitUrl,
        REDIS_URL: infra.redisUrl,
        // A send claimed by a killed worker is settled within the drain, but not before its Send notification could
        // come: on this loaded machine notification-ingest ran up to ~50 s behind (a kill, a PostgreSQL restart),
        // and 20 s (bench/send-chaos's window) re-sent 39 emails SES had taken. Production: 15 min.
        SEND_RECONCILE_AFTER_MS: "120000",
        SEND_RECONCILE_INTERVAL_MS: "5000",
        SEND_RATE_PER_SECOND: "50",
        SEND_RATE_LIMIT: "0",
        SEND_DAILY_CAP: "0",
        // a webhook attempt cut by a kill is retried within the drain (the default waits 30 s, then 1, 2, 4 min)
        WEBHOOK_RETRY_DELAYS_MS: "5000,10000,20000,40000",
        LOG_LEVEL: "warn",
      },
    });
    const d = JSON.parse(fs.readFileSync(path.join(stack.stateDir, "demo.json"), "utf8")) as Demo;
    const secrets = JSON.parse(fs.readFileSync(path.join(stack.stateDir, "secrets.json"), "utf8")) as Record<
      string,
      string
    >;
    // a pool, not one client: PostgreSQL's restart (a fault) ends every connection, and a pool makes new ones
    const db = new Pool({ connectionString: infra.databaseUrl, max: 3 });
    db.on("error", () => undefined);

    // ---- set-up (before any fault)
    const runId = Date.now().toString(36);
    const sim = (body: unknown) =>
      fetch(`${d.simulator_url}/_sim/config`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    await sim({ maxMessagesKept: 1_000_000, latencyMs: 0, fault: null });
    await fetch(`${d.simulator_url}/_sim/reset`, { method: "POST" });
    const receiver = await startReceiver({ live: d.live_key, test: d.test_key }, d.project_id);
    await admin(d, "PATCH", `/projects/${d.project_id}`, {
      webhook_url: `${receiver.url}/live`,
      webhook_url_dev: `${receiver.url}/test`,
      inbound_webhook_url: `${receiver.url}/inbound-live`,
      inbound_webhook_url_dev: `${receiver.url}/inbound-test`,
    });
    const template = await admin(d, "POST", `/projects/${d.project_id}/templates`, {
      name: `chaos ${runId}`,
      // a stored template's own syntax: single braces
      subject: "Template for {name}",
      html: '<p>Hello {name} <a href="https://example.com/t">link</a></p>',
    });
    const templateId = (template as { template?: { template_id?: string } }).template?.template_id;
    if (!templateId) throw new Error(`the admin API made no template: ${JSON.stringify(template)}`);
    const shopSecret = `chaos-secret-${runId}`;
    const shopDomain = `chaos-${runId}.myshop.test`;
    await admin(d, "POST", `/projects/${d.project_id}/shops`, {
      shop_domain: shopDomain,
      secret: shopSecret,
    });
    // the sends the replies answer: live and test activities with reply tokens, as the send path leaves them
    const msgId = randomUUID();
    const targets = Array.from({ length: REPLY_TARGETS }, (_, i) => ({
      id: randomUUID(),
      token: randomBytes(4).toString("hex"),
      recipient: `target-${runId}-${i}@example.org`,
      isTest: i % 2 === 1,
    }));
    await db.query(
      "INSERT INTO email_messages (id, project_id, is_test, source, from_email, subject, html) VALUES ($1, $2, false, 'api', $3, 'Your order', 'x')",
      [msgId, d.project_id, d.sender_email],
    );
    await db.query(
      `INSERT INTO activities (id, project_id, email_message_id, is_test, recipient, status, provider_message_id, reply_token, message_id)
       SELECT a, $1, $2, t, r, 'delivered', 'chaos-' || a::text, k, 'chaos-out-' || a::text || '@email.amazonses.com'
         FROM unnest($3::uuid[], $4::text[], $5::text[], $6::boolean[]) AS x(a, k, r, t)`,
      [
        d.project_id,
        msgId,
        targets.map((t) => t.id),
        targets.map((t) => t.token),
        targets.map((t) => t.recipient),
        targets.map((t) => t.isTest),
      ],
    );
    await db.query(
      "INSERT INTO reply_tokens (token, project_id, activity_id) SELECT t, $1, a FROM unnest($2::text[], $3::uuid[]) AS x(t, a)",
      [d.project_id, targets.map((t) => t.token), targets.map((t) => t.id)],
    );
    // the campaign's audience: subscribed leads on mailbox-simulator addresses, tagged for this run
    const tag = `chaos-${runId}`;
    const campaignRecipients = Array.from(
      { length: CAMPAIGN_LEADS },
      (_, i) => `success+c-${runId}-${i}@simulator.amazonaws.com`,
    );
    const leads = await fetch(`${d.base_url}/v1/leads`, {
      method: "POST",
      headers: { authorization: `Bearer ${d.live_key}`, "content-type": "application/json" },
      body: JSON.stringify({
        leads: campaignRecipients.map((email, i) => ({
          email,
          first_name: `C${i}`,
          tags: [tag],
          subscription: "subscribed",
        })),
      }),
    });
    if (!leads.ok) throw new Error(`POST /v1/leads: ${leads.status} ${await leads.text()}`);
    // the services trust a project's webhook URLs for 5 s
    await sleep(6000);

    const ledger: Ledger = {
      runId,
      startedAt: new Date(),
      sends: [],
      events: [],
      shop: [],
      inbound: [],
      tracking: [],
      campaignId: null,
      campaignRecipients,
      refused: new Map(),
    };
    const campaign = (await admin(d, "POST", `/projects/${d.project_id}/campaigns`, {
      name: `chaos ${runId}`,
      subject: "Hi {{first_name}}",
      html: "<p>Hi {{first_name}}, the chaos campaign.</p>",
      sender_email: d.sender_email,
      audience: { tags: [tag] },
      send_over_hours: (SECONDS * 0.7) / 3600,
    })) as { campaign: { id: string } };
    ledger.campaignId = campaign.campaign.id;

    // ---- traffic and faults
    const client = new Client();
    const stop = { at: Date.now() + SECONDS * 1000 };
    log(
      `chaos: run ${runId}: traffic for ${SECONDS} s at rate ×${RATE}, campaign of ${CAMPAIGN_LEADS}; faults:`,
    );
    const faults = buildFaults(stack, infra, d.simulator_url, 10_000);
    const traffic = runTraffic(
      {
        d,
        client,
        ledger,
        templateId,
        shop: { domain: shopDomain, secret: shopSecret },
        replyTargets: targets,
        s3Endpoint: `http://127.0.0.1:${4569 + OFFSET}`,
        trackingSecret: secrets.TRACKING_SECRET!,
        inboundDomain: "inbound.localhost",
      },
      stop,
      RATE,
    );
    const windows = await runFaults(faults, (SECONDS * 1000) / (faults.length + 1), log);
    stop.at = Math.max(stop.at, Date.now() + 5000);
    await traffic;
    const trafficEnded = Date.now();
    log(
      `chaos: traffic stopped after ${((trafficEnded - ledger.startedAt.getTime()) / 1000).toFixed(0)} s; draining (at most ${DRAIN_S} s)`,
    );

    // ---- drain
    const q = async (sql: string, params: unknown[]) =>
      Number((await db.query<{ n: number }>(sql, params)).rows[0]!.n);
    const deadline = Date.now() + DRAIN_S * 1000;
    let last = "";
    for (;;) {
      await sleep(2000);
      const state = await drainState().catch((err: Error) => `(database: ${err.message})`);
      if (state !== last)
        log(`  +${((Date.now() - trafficEnded) / 1000).toFixed(0).padStart(4)} s  ${state}`);
      last = state;
      if (state === "drained" || Date.now() > deadline) break;
    }
    async function drainState(): Promise<string> {
      const open = await q(
        "SELECT count(*)::int AS n FROM activities WHERE project_id = $1 AND created_at >= $2 AND status IN ('queued','sending','scheduled')",
        [d.project_id, ledger.startedAt],
      );
      const hooks = await q(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1 AND status IN ('pending','failed') AND url IS NOT NULL",
        [d.project_id],
      );
      const shop = await q(
        "SELECT count(*)::int AS n FROM shop_webhook_events WHERE project_id = $1 AND processed_at IS NULL",
        [d.project_id],
      );
      const camp = (
        await db.query<{ status: string }>("SELECT status FROM campaigns WHERE id = $1", [ledger.campaignId])
      ).rows[0]!.status;
      if (open === 0 && hooks === 0 && shop === 0 && camp === "completed") return "drained";
      return `open sends ${open}, webhooks pending ${hooks}, shop unprocessed ${shop}, campaign ${camp}`;
    }
    // late provider notifications and their webhooks
    await sleep(10_000);
    log(`chaos: drained ${((Date.now() - trafficEnded) / 1000).toFixed(0)} s after the traffic stopped`);

    const rows = await checkInvariants({
      db,
      projectId: d.project_id,
      simulatorUrl: d.simulator_url,
      ledger,
      received: receiver.received,
      fiveXx: client.fiveXx,
      windows,
      setupActivityIds: targets.map((t) => t.id),
    });
    await db.end();
    receiver.close();
    if (KEEP) {
      // the simulator's record (every copy with its time and activity tag, every notification), kept for a look
      const get = async (route: string) => (await fetch(`${d.simulator_url}/_sim/${route}`)).json();
      const messages = ((await get("messages")) as { messages: Record<string, unknown>[] }).messages;
      fs.writeFileSync(
        path.join(dir, "simulator.json"),
        JSON.stringify({
          messages: messages.map(({ raw: _raw, headers: _headers, ...m }) => m),
          notifications: ((await get("notifications")) as { notifications: unknown[] }).notifications,
        }),
      );
      log(`chaos: the simulator's messages and notifications in ${path.join(dir, "simulator.json")}`);
    }

    const accepted = (k: string) => ledger.sends.filter((s) => s.kind === k && s.accepted).length;
    log("");
    log(
      `traffic: ${accepted("single")} single, ${accepted("template")} template, ${accepted("batch")} batch (×5) and ${accepted("scheduled")} scheduled (×3) sends accepted, ` +
        `${ledger.events.filter((x) => x.accepted).length} events, ${ledger.shop.filter((x) => x.accepted).length} shop webhooks, ` +
        `${ledger.inbound.filter((x) => x.accepted).length} inbound replies, ${ledger.tracking.filter((x) => x.accepted).length} tracking hits, ` +
        `campaign of ${CAMPAIGN_LEADS}; ${receiver.received.length} client webhooks received; ` +
        `${[...client.attempts.values()].reduce((a, b) => a + b, 0)} requests, ${client.networkErrors.length} network errors`,
    );
    if (ledger.refused.size)
      log(`refused (not accepted after retries): ${JSON.stringify(Object.fromEntries(ledger.refused))}`);
    const kills = windows.filter((w) => w.fault.startsWith("SIGKILL")).length;
    log(
      `faults: ${windows.length} (${kills} SIGKILLs, ${windows.filter((w) => w.target === "rabbitmq").length} RabbitMQ, ` +
        `${windows.filter((w) => w.target === "postgres").length} PostgreSQL, ${windows.filter((w) => w.target === "redis").length} Redis, ` +
        `${windows.filter((w) => w.target === "provider").length} provider stretches); supervision log: ` +
        `${stack.supervisionLines().filter((l) => l.includes("restarting")).length} restarts`,
    );
    log("");
    log(printTable(rows));
    return rows.every((r) => r.pass) ? 0 : 1;
  } finally {
    await cleanup();
  }
}

// Ctrl-C: the same clean-up as the end of a run (the stack, then the private servers)
let interrupted = false;
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`chaos: ${sig}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
