/**
 * bench/smtp (issue 48): the SMTP relay against /v1/send-email, in the same run, against
 * `SEND_RATE_PER_SECOND=0 pnpm start` (its `smtp_url` and keys from demo.json; STACK_STATE_DIR and
 * STACK_PORT_OFFSET for a stack of your own):
 *   0. warm-up, not measured: `--warmup` (1,000) messages each way;
 *   1. 5,000 messages (`--n`) over 20 SMTP connections (one nodemailer pool, STARTTLS with the stack's self-signed
 *      certificate and AUTH with the demo test key; `--plain`: no TLS, the loopback exception of a local stack),
 *      and the same 5,000 emails through POST /v1/send-email on public-api's own port with 20 requests in flight:
 *      same sender, recipients, subject and HTML, the test key both ways. The phases run HTTP, SMTP, SMTP, HTTP (a
 *      stack still speeds up over its first phases), each on a quiet stack; a path's rate is its 2N acknowledged
 *      messages (250 / 200 answers) over its two phases' time;
 *   2. CPU milliseconds per message of each process (smtp-relay, public-api, send-worker, PostgreSQL, RabbitMQ,
 *      simulator…) and of this load generator, read from /proc from a phase's first message until the simulator
 *      holds all of them (so what send-worker does with them is counted too). PostgreSQL and RabbitMQ are counted
 *      whole: run it on a quiet machine.
 * Goal: the relay's rate at least 70% of /v1/send-email's. Never run in CI.
 * Run: pnpm --filter @emailsvc/bench smtp [--n 5000] [--warmup 1000] [--plain]
 */
import fs from "node:fs";
import path from "node:path";
import nodemailer from "nodemailer";
import pg from "pg";
import {
  cpuBetween,
  pidListeningOn,
  type ProcGroup,
  snapshot,
  stackGroups,
  waitForQuiet,
} from "../lib/proc-cpu";
import { DATABASE_URL, demo, numArg, post, STACK_DIR } from "../lib/stack";

const d = demo() as ReturnType<typeof demo> & { smtp_url?: string };
const N = numArg("n", 5000);
const WARMUP = numArg("warmup", 1000);
const CONNECTIONS = 20;
const PLAIN = process.argv.includes("--plain");
const OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);
const API = `http://127.0.0.1:${3001 + OFFSET}`;
if (!d.smtp_url) {
  console.error("demo.json has no smtp_url: start a stack that runs smtp-relay (pnpm start)");
  process.exit(1);
}
const smtp = new URL(d.smtp_url);
const relayGroup: ProcGroup = {
  name: "smtp-relay",
  find: () => {
    const pid = pidListeningOn(3010 + OFFSET);
    return pid ? [pid] : [];
  },
};
const groups = [relayGroup, ...stackGroups(OFFSET)];

const simCount = async () =>
  ((await (await fetch(`${d.simulator_url}/_sim/messages/count`)).json()) as { count: number }).count;
const resetSim = () => fetch(`${d.simulator_url}/_sim/reset`, { method: "POST" });
const simConfig = async (patch: Record<string, unknown>) =>
  (await (
    await fetch(`${d.simulator_url}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(patch),
    })
  ).json()) as Record<string, unknown>;

/**
 * The stack database's committed transactions (each statement outside BEGIN is one) and outbox rows written
 * (each is one publish to RabbitMQ by an outbox relay), from pg_stat_database / pg_stat_user_tables: what a
 * message costs PostgreSQL and the broker in round trips, where the CPU figures only say how much.
 */
const statsDb = new pg.Client({ connectionString: DATABASE_URL });
async function dbCounters(): Promise<{ xacts: number; outbox: number }> {
  // a backend reports its counters at most once a second
  await new Promise((r) => setTimeout(r, 1_100));
  const { rows } = await statsDb.query<{ xacts: string; outbox: string }>(
    `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS xacts,
            (SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname = 'outbox_messages') AS outbox`,
  );
  return { xacts: Number(rows[0]!.xacts), outbox: Number(rows[0]!.outbox) };
}

async function pool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** The one message both ways. */
const content = (i: number) => ({
  to: `success+s${i}@simulator.amazonaws.com`,
  subject: `Bench ${i}`,
  html: `<p>Hello ${i}, your order has shipped. <a href="https://example.com/orders/${i}">Track it</a></p>`,
});

function sendHttp(i: number): Promise<void> {
  const c = content(i);
  return post(
    `${API}/v1/send-email`,
    JSON.stringify({
      recipient_email: c.to,
      sender_email: d.sender_email,
      subject: c.subject,
      html_body: c.html,
    }),
    { Authorization: `Bearer ${d.test_key}`, "Content-Type": "application/json" },
  ).then((r) => {
    if (r.status !== 200) throw new Error(`send-email answered ${r.status}: ${r.text}`);
  });
}

const certFile = path.join(STACK_DIR, "smtp-tls", "cert.pem");
const transport = nodemailer.createTransport({
  pool: true,
  maxConnections: CONNECTIONS,
  maxMessages: Infinity,
  host: smtp.hostname,
  port: Number(smtp.port),
  secure: false,
  requireTLS: !PLAIN,
  ignoreTLS: PLAIN,
  auth: { user: "apikey", pass: d.test_key },
  tls: fs.existsSync(certFile) ? { ca: [fs.readFileSync(certFile)] } : { rejectUnauthorized: false },
});

async function sendSmtp(i: number): Promise<void> {
  const c = content(i);
  const info = await transport.sendMail({ from: d.sender_email, to: c.to, subject: c.subject, html: c.html });
  if (!/^250 2\.0\.0 queued as /.test(info.response)) throw new Error(`relay answered ${info.response}`);
}

async function phase(send: (i: number) => Promise<void>, offset: number) {
  await waitForQuiet(groups);
  await resetSim();
  const counters = await dbCounters();
  const before = snapshot(groups);
  const self = process.cpuUsage();
  const t0 = performance.now();
  await pool(N, CONNECTIONS, (i) => send(offset + i));
  const accepted = performance.now() - t0;
  // A provider call that ends without an answer (a reset) is left to the reconciler, minutes later: the phase
  // stops waiting once the count has not moved for 10 s, and says how many it missed.
  let held = 0;
  let movedAt = performance.now();
  for (let c; (c = await simCount()) < N && performance.now() - movedAt < 10_000; ) {
    if (c !== held) [held, movedAt] = [c, performance.now()];
    await new Promise((r) => setTimeout(r, 100));
  }
  const missing = N - (await simCount());
  if (missing > 0) console.warn(`  ${missing} message(s) of the phase not at the simulator after 10 s without progress`);
  const sent = (missing > 0 ? movedAt : performance.now()) - t0;
  const cpu = cpuBetween(before, snapshot(groups));
  const gen = process.cpuUsage(self);
  const after = await dbCounters();
  return {
    accepted,
    sent,
    cpu,
    genMs: (gen.user + gen.system) / 1000,
    // minus the counting query of `after` itself
    xacts: after.xacts - counters.xacts - 1,
    outbox: after.outbox - counters.outbox,
  };
}
type Phase = Awaited<ReturnType<typeof phase>>;

const both = (a: Phase, b: Phase) => {
  const cpu = new Map(a.cpu);
  for (const [name, ms] of b.cpu) cpu.set(name, (cpu.get(name) ?? 0) + ms);
  return {
    rate: (2 * N) / ((a.accepted + b.accepted) / 1000),
    rates: [N / (a.accepted / 1000), N / (b.accepted / 1000)],
    e2e: (2 * N) / ((a.sent + b.sent) / 1000),
    cpu,
    genMs: a.genMs + b.genMs,
    xacts: a.xacts + b.xacts,
    outbox: a.outbox + b.outbox,
  };
};

async function main() {
  // The simulator's SNS notifications (and the notification-ingest and webhook work they cause) are off for the
  // run, as in send-pipeline: what is compared ends at the provider.
  await statsDb.connect();
  const saved = await simConfig({});
  await simConfig({ notificationUrl: null, latencyMs: 0, maxSendRate: null });
  try {
    await pool(WARMUP, CONNECTIONS, (i) => sendHttp(9_000_000 + i));
    await pool(WARMUP, CONNECTIONS, (i) => sendSmtp(9_500_000 + i));
    const httpA = await phase(sendHttp, 0);
    const smtpA = await phase(sendSmtp, 1_000_000);
    const smtpB = await phase(sendSmtp, 2_000_000);
    const httpB = await phase(sendHttp, 3_000_000);
    const http = both(httpA, httpB);
    const relay = both(smtpA, smtpB);

    const f = (x: number) => x.toFixed(0);
    console.log(
      `\nbench/smtp: ${N} messages per phase, ${CONNECTIONS} connections / requests in flight, test key, ` +
        `SMTP ${PLAIN ? "plain (loopback)" : "STARTTLS"}; phases HTTP, SMTP, SMTP, HTTP`,
    );
    console.log(
      `  SMTP relay          ${f(relay.rate)} messages/s acknowledged (phases ${relay.rates.map(f).join(", ")}); ${f(relay.e2e)}/s through to the simulator`,
    );
    console.log(
      `  POST /v1/send-email ${f(http.rate)} emails/s acknowledged   (phases ${http.rates.map(f).join(", ")}); ${f(http.e2e)}/s through to the simulator`,
    );
    const ratio = relay.rate / http.rate;
    console.log(
      `  SMTP / HTTP         ${(ratio * 100).toFixed(0)}%   (goal ≥ 70%: ${ratio >= 0.7 ? "met" : "NOT met"})`,
    );
    console.log(`\n  CPU ms per message, from the first message until the simulator held all of them:`);
    console.log(`  ${"process".padEnd(22)}${"SMTP".padStart(8)}${"HTTP".padStart(8)}`);
    const per = (m: Map<string, number>, name: string) => (m.get(name) ?? 0) / (2 * N);
    let tSmtp = 0;
    let tHttp = 0;
    for (const g of groups) {
      const s = per(relay.cpu, g.name);
      const h = per(http.cpu, g.name);
      tSmtp += s;
      tHttp += h;
      if (s < 0.005 && h < 0.005) continue;
      console.log(`  ${g.name.padEnd(22)}${s.toFixed(2).padStart(8)}${h.toFixed(2).padStart(8)}`);
    }
    console.log(
      `  ${"total of the stack".padEnd(22)}${tSmtp.toFixed(2).padStart(8)}${tHttp.toFixed(2).padStart(8)}`,
    );
    console.log(
      `  ${"load generator".padEnd(22)}${(relay.genMs / (2 * N)).toFixed(2).padStart(8)}${(http.genMs / (2 * N)).toFixed(2).padStart(8)}   (nodemailer / undici; takes its CPU from the same 2 cores)`,
    );
    console.log(`\n  per message, every service of the stack together:`);
    console.log(
      `  ${"PostgreSQL commits".padEnd(22)}${(relay.xacts / (2 * N)).toFixed(2).padStart(8)}${(http.xacts / (2 * N)).toFixed(2).padStart(8)}   (statements outside a transaction count one each)`,
    );
    console.log(
      `  ${"outbox rows".padEnd(22)}${(relay.outbox / (2 * N)).toFixed(2).padStart(8)}${(http.outbox / (2 * N)).toFixed(2).padStart(8)}   (one RabbitMQ publish each)`,
    );
  } finally {
    transport.close();
    await statsDb.end();
    await simConfig({ notificationUrl: saved.notificationUrl ?? null, latencyMs: saved.latencyMs ?? 0 });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
