/**
 * bench/inbound (issue 26: inbound replies). Against a running `pnpm start`:
 * 5,000 replies of about 20 KB, each with one PDF attachment, to 500 sends of the demo project (test mode, reply
 * tokens written directly in the database), injected through the simulator as SES receiving does it: the MIME
 * stored in S3 (s3rver), then an SNS-signed Received notification to inbound-mail's POST /api/inbound/provider
 * through the gateway. inbound-mail stores, fetches, parses, threads, stores the attachment and the reply, and
 * webhook-dispatcher POSTs the signed email.inbound webhook to a local receiver (the demo project's
 * inbound_webhook_url_dev points at it for the run; restored afterwards).
 * Prints processed/s: first injection → last webhook received (and → last reply stored), next to the raw baseline
 * measured in the same run: mailparser's parse-only rate of the same messages in this process. Every received
 * signature is checked.
 * Then a paced phase (issue 43: the receiver answers with the thread, so its answer waits for the processing):
 * `--rate` replies/s (50) for `--paced-seconds` (20), the MIME put in S3 first, then the signed notification POSTed
 * through the gateway and its answer timed: p50 / p99 / max of the answer, and how many named their thread.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development inbound/run.ts [--n 5000] [--rate 50]
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { Client } from "pg";
import { Agent, request } from "undici";
import { createS3Client, putObject } from "@emailsvc/provider";
import { signedReceivedNotification } from "../lib/inbound-notification";
import { cpuBetween, pidListeningOn, type ProcGroup, snapshot, withChildren } from "../lib/proc-cpu";
import { DATABASE_URL, demo, numArg } from "../lib/stack";

const d = demo();
const N = numArg("n", 5000);
const SENDS = Math.max(1, Math.round(N / 10));
const IN_FLIGHT = numArg("in-flight", 32);
const INBOUND_DOMAIN = process.env.INBOUND_DOMAIN ?? "inbound.localhost";
const OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);
const RATE = numArg("rate", 50);
const PACED_SECONDS = numArg("paced-seconds", 20);

/**
 * PostgreSQL's backends serving this stack's database (their process title names it): the server is shared, and
 * the postmaster with all its children also counted other stacks' work, and counted a backend that ended between
 * the two snapshots (another client disconnecting) as negative CPU.
 */
function backendsOf(database: string): number[] {
  const postmaster = pidListeningOn(5432);
  if (!postmaster) return [];
  return withChildren(postmaster).filter((pid) => {
    try {
      // "postgres: 15/main: <user> <database> <client> <state>"
      return fs
        .readFileSync(`/proc/${pid}/cmdline`, "utf8")
        .split(/[\s\0]+/)
        .includes(database);
    } catch {
      return false;
    }
  });
}

/** The processes a reply goes through, found by the ports they listen on (RabbitMQ is shared: its figure is not ours alone). */
function groups(): ProcGroup[] {
  const byPort = (port: number) => () => {
    const pid = pidListeningOn(port);
    return pid ? [pid] : [];
  };
  return [
    { name: "inbound-mail", find: byPort(3007 + OFFSET) },
    { name: "webhook-dispatcher", find: byPort(3008 + OFFSET) },
    { name: "gateway", find: byPort(8080 + OFFSET) },
    { name: "simulator", find: byPort(4566 + OFFSET) },
    { name: "s3rver", find: byPort(4569 + OFFSET) },
    { name: "postgresql", find: () => backendsOf(new URL(DATABASE_URL).pathname.slice(1)) },
    { name: "rabbitmq", find: byPort(5672) },
  ];
}

/** A PDF-looking attachment of about 12 KB (16 KB in base64), the same bytes for every reply. */
const PDF = Buffer.concat([
  Buffer.from("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n"),
  randomBytes(12 * 1024),
  Buffer.from("\n%%EOF\n"),
]);
const PDF_B64 = PDF.toString("base64").replace(/(.{76})/g, "$1\r\n");
const PARAGRAPH =
  "Thanks for the update on my order. I checked the attached invoice and everything looks right, but the " +
  "delivery address should be the office, not the warehouse. Could you change that before it ships?\r\n";

function reply(i: number, token: string, to: string): string {
  const boundary = `b-${i}-${randomUUID()}`;
  return [
    `From: Customer ${i} <${to}>`,
    `To: Shop <r-${token}@${INBOUND_DOMAIN}>`,
    `Subject: Re: Your order ${i % SENDS}`,
    `Message-ID: <bench-${i}-${randomUUID()}@mail.example.org>`,
    `In-Reply-To: <bench-out-${i % SENDS}@email.amazonses.com>`,
    "Date: Tue, 24 Nov 2026 10:15:04 +0100",
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=UTF-8",
    "",
    PARAGRAPH.repeat(8),
    `On Mon, Nov 23, 2026 at 6:02 PM Shop <${d.sender_email}> wrote:`,
    ...Array.from({ length: 12 }, () => `> ${PARAGRAPH.trim()}`),
    "",
    `--${boundary}`,
    `Content-Type: application/pdf; name="invoice-${i}.pdf"`,
    `Content-Disposition: attachment; filename="invoice-${i}.pdf"`,
    "Content-Transfer-Encoding: base64",
    "",
    PDF_B64,
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

async function pool(n: number, c: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function main() {
  let received = 0;
  let badSignatures = 0;
  let lastAt = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const expected = `sha256=${createHmac("sha256", d.test_key).update(body).digest("hex")}`;
      if (req.headers["x-svc-signature"] !== expected) badSignatures++;
      received++;
      lastAt = performance.now();
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
    });
  });
  receiver.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/inbound`;

  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const saved = (
    await db.query<{ inbound_webhook_url_dev: string | null }>(
      "SELECT inbound_webhook_url_dev FROM projects WHERE id = $1",
      [d.project_id],
    )
  ).rows[0]!.inbound_webhook_url_dev;
  await db.query("UPDATE projects SET inbound_webhook_url_dev = $2 WHERE id = $1", [d.project_id, url]);

  // the sends the replies answer: test-mode activities with reply tokens, as public-api and send-worker leave them
  const msgId = randomUUID();
  const activities = Array.from({ length: SENDS }, () => randomUUID());
  const tokens = activities.map(() => randomBytes(8).toString("hex").slice(0, 8));
  const recipients = activities.map((_a, i) => `customer-${i}-${msgId.slice(0, 8)}@example.org`);
  await db.query(
    "INSERT INTO email_messages (id, project_id, is_test, source, from_email, subject, html) VALUES ($1, $2, true, 'api', $3, 'Your order', 'x')",
    [msgId, d.project_id, d.sender_email],
  );
  await db.query(
    `INSERT INTO activities (id, project_id, email_message_id, is_test, recipient, status, provider_message_id, reply_token, message_id)
     SELECT a, $1, $2, true, r, 'delivered', 'bench-' || a::text, t, 'bench-out-' || (o - 1) || '-' || a::text || '@email.amazonses.com'
       FROM unnest($3::uuid[], $4::text[], $5::text[]) WITH ORDINALITY AS x(a, t, r, o)`,
    [d.project_id, msgId, activities, tokens, recipients],
  );
  await db.query(
    "INSERT INTO reply_tokens (token, project_id, activity_id) SELECT t, $1, a FROM unnest($2::text[], $3::uuid[]) AS x(t, a)",
    [d.project_id, tokens, activities],
  );

  const mails = Array.from({ length: N }, (_v, i) => reply(i, tokens[i % SENDS]!, recipients[i % SENDS]!));
  const avgKb = mails.reduce((s, m) => s + m.length, 0) / N / 1024;

  // Raw baseline first, while the stack is idle: mailparser alone on the same messages, one after another.
  const sample = mails.slice(0, Math.min(N, 2000));
  const t0 = performance.now();
  for (const m of sample) await simpleParser(Buffer.from(m));
  const parseRate = sample.length / ((performance.now() - t0) / 1000);

  const agent = new Agent({ connections: IN_FLIGHT, keepAliveTimeout: 30_000 });
  const cpuBefore = snapshot(groups());
  const start = performance.now();
  let injectErrors = 0;
  await pool(N, IN_FLIGHT, async (i) => {
    const r = await request(`${d.simulator_url}/_sim/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ raw: mails[i] }),
      dispatcher: agent,
    });
    await r.body.dump();
    if (r.statusCode !== 202) injectErrors++;
  });
  const injectedMs = performance.now() - start;

  const deadline = Date.now() + 15 * 60_000;
  let stored = 0;
  let storedAt = 0;
  while (Date.now() < deadline && (received < N || stored < N)) {
    const n = Number(
      (
        await db.query<{ n: string }>(
          "SELECT count(*)::text AS n FROM inbound_messages WHERE project_id = $1 AND activity_id = ANY($2::uuid[])",
          [d.project_id, activities],
        )
      ).rows[0]!.n,
    );
    if (n > stored) {
      stored = n;
      storedAt = performance.now();
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const cpu = cpuBetween(cpuBefore, snapshot(groups()));
  const failed = (
    await db.query<{ status: string; n: string }>(
      `SELECT status, count(*)::text AS n FROM inbound_notifications WHERE received_at > now() - interval '1 hour'
        AND status NOT IN ('processed') GROUP BY status`,
    )
  ).rows;

  // the throughput phase's figures, before the paced phase's replies add webhooks of their own
  const receivedInPhase = received;
  const lastInPhase = lastAt;
  const paced = await pacedPhase((i) => reply(N + i, tokens[i % SENDS]!, recipients[i % SENDS]!), agent);

  await db.query("UPDATE projects SET inbound_webhook_url_dev = $2 WHERE id = $1", [d.project_id, saved]);
  await db.end();
  receiver.close();
  await agent.close();

  const rate = (count: number, ms: number) => (count / (ms / 1000)).toFixed(0);
  const processedRate = receivedInPhase / ((lastInPhase - start) / 1000);
  console.log(
    `bench/inbound: ${N} replies of ${avgKb.toFixed(1)} KB (one ${(PDF.length / 1024).toFixed(0)} KB PDF each) to ${SENDS} sends, ${IN_FLIGHT} injections in flight`,
  );
  console.log(
    `  injected (simulator: S3 + signed SNS accepted)   ${rate(N, injectedMs)}/s  (${injectErrors} errors)`,
  );
  console.log(
    `  stored (inbound_messages)                        ${stored}/${N}, ${rate(stored, storedAt - start)}/s`,
  );
  console.log(
    `  processed (webhook received, signature checked)  ${receivedInPhase}/${N}, ${processedRate.toFixed(0)}/s  (${badSignatures} bad signatures)`,
  );
  console.log(`  raw baseline: mailparser parse-only, same messages ${parseRate.toFixed(0)}/s`);
  console.log(
    `  processed / parse-only                           ${((processedRate / parseRate) * 100).toFixed(0)}%`,
  );
  console.log(
    `  CPU ms per reply: ${[...cpu].map(([name, ms]) => `${name} ${(ms / Math.max(1, receivedInPhase)).toFixed(2)}`).join(", ")}`,
  );
  if (failed.length) console.log(`  notifications not processed (last hour): ${JSON.stringify(failed)}`);
  const q = (p: number) =>
    paced.latencies[Math.min(paced.latencies.length - 1, Math.floor(p * paced.latencies.length))] ?? NaN;
  console.log(
    `  paced ${RATE}/s for ${PACED_SECONDS} s (S3 put first, then the signed POST through the gateway, timed): answer p50 ${q(0.5).toFixed(0)} ms, p99 ${q(0.99).toFixed(0)} ms, max ${(paced.latencies.at(-1) ?? NaN).toFixed(0)} ms; statuses ${JSON.stringify(paced.statuses)}, ${paced.withThread}/${paced.latencies.length} named their thread`,
  );
}

/**
 * `RATE` replies a second for `PACED_SECONDS`, each as SES receiving makes it: the MIME in the inbound bucket, then
 * the SNS-signed Received notification, whose answer is timed (what SNS waits for).
 */
async function pacedPhase(mime: (i: number) => string, agent: Agent) {
  const s3 = createS3Client({
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${4569 + OFFSET}`,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  const total = RATE * PACED_SECONDS;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let withThread = 0;
  const start = performance.now();
  const one = async (i: number) => {
    const sesMessageId = `paced${randomUUID().replace(/-/g, "")}`;
    const objectKey = `inbound/${sesMessageId}`;
    const raw = mime(i);
    await putObject(s3, { bucket: "inbound-mail", key: objectKey, body: raw });
    const recipients = [/^To: .*<([^>]+)>/m.exec(raw)![1]!];
    const body = signedReceivedNotification({
      sesMessageId,
      objectKey,
      recipients,
      simulatorUrl: d.simulator_url,
    });
    const t = performance.now();
    const r = await request(`${d.base_url}/api/inbound/provider`, {
      method: "POST",
      headers: { "content-type": "text/plain; charset=UTF-8" },
      body,
      dispatcher: agent,
    });
    const answer = (await r.body.json()) as { status?: string; threadId?: string | null };
    latencies.push(performance.now() - t);
    const key = `${r.statusCode} ${answer.status ?? ""}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
    if (answer.threadId) withThread++;
  };
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(one(i));
  }
  await Promise.all(pending);
  s3.destroy();
  latencies.sort((a, b) => a - b);
  return { latencies, statuses, withThread };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
