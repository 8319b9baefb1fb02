/**
 * bench/notifications (issue: delivery feedback). Against a running `pnpm start`:
 * 20,000 SNS-signed Delivery notifications (for 20,000 activities created directly in the database) posted to
 * notification-ingest's /webhooks/provider, 50 in flight: accepted/s (HTTP 200) and processed/s (activity
 * `delivered` in PostgreSQL). Raw baselines in the same run: signature verification alone per second, and one
 * INSERT + UPDATE pair per event through pg.
 * With the demo project's webhook URLs pointing at a local receiver (`--webhook up`, the default: the case users
 * run, issue 28), each delivery also becomes an email.delivered webhook: it prints when the last one arrived.
 * `--webhook off` measures without URLs, `down` against a closed port. Also CPU ms per notification per process.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development notifications/run.ts [--n 20000]
 *      [--webhook up|down|off]
 */
import { randomUUID } from "node:crypto";
import { Client } from "pg";
import { createSnsVerifier, readSnsTestFixtures, signSnsMessage } from "@emailsvc/provider";
import { cpuBetween, snapshot, stackGroups } from "../lib/proc-cpu";
import { DATABASE_URL, PORT_OFFSET, demo, numArg, post } from "../lib/stack";
import { useWebhookReceiver, webhookModeArg } from "../lib/webhook-receiver";

const d = demo();
const N = numArg("n", 20000);
const { privateKeyPem } = readSnsTestFixtures();
const certUrl = `${d.simulator_url}/_sim/cert.pem`;

async function pool(n: number, c: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function main() {
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const msgId = randomUUID();
  const ids = Array.from({ length: N }, () => randomUUID());
  await db.query(
    "INSERT INTO email_messages (id, project_id, is_test, source, from_email, subject, html) VALUES ($1, $2, true, 'api', $3, 'bench', 'x')",
    [msgId, d.project_id, d.sender_email],
  );
  await db.query(
    `INSERT INTO activities (id, project_id, email_message_id, is_test, recipient, status, provider_message_id)
     SELECT a, $1, $2, true, 'bench@example.com', 'sent', 'bench-' || a::text FROM unnest($3::uuid[]) AS a`,
    [d.project_id, msgId, ids],
  );
  const messages = ids.map((id) =>
    JSON.stringify(
      signSnsMessage(
        {
          Type: "Notification",
          MessageId: randomUUID(),
          TopicArn: "arn:aws:sns:us-east-1:000000000000:ses-notifications",
          Message: JSON.stringify({
            eventType: "Delivery",
            mail: { messageId: `bench-${id}`, timestamp: new Date().toISOString() },
            delivery: { timestamp: new Date().toISOString(), recipients: ["bench@example.com"] },
          }),
          Timestamp: new Date().toISOString(),
        },
        { privateKeyPem, certUrl },
      ),
    ),
  );

  // Raw baselines first, while the stack is idle (afterwards it is still busy with the webhooks the run caused).
  // raw baseline 1: signature verification alone (certificate cached)
  const verifier = createSnsVerifier({ allowedCertHosts: /^127\.0\.0\.1$/, allowHttpCertUrls: true });
  const sample = messages.slice(0, 2000).map((m) => JSON.parse(m) as Record<string, unknown>);
  await verifier.verify(sample[0]!);
  const t1 = performance.now();
  for (const m of sample) await verifier.verify(m);
  const verifyRate = sample.length / ((performance.now() - t1) / 1000);

  // raw baseline 2: one INSERT + UPDATE pair per event through pg (2,000 events, 20 connections)
  const conns = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const c = new Client({ connectionString: DATABASE_URL });
      await c.connect();
      return c;
    }),
  );
  const t2 = performance.now();
  let next = 0;
  await Promise.all(
    conns.map(async (c) => {
      // one event at a time per connection
      for (let i = next++; i < 2000; i = next++) {
        await c.query(
          "INSERT INTO email_events (id, project_id, activity_id, type, is_test, occurred_at) VALUES (gen_random_uuid(), $1, $2, 'delivered', true, now())",
          [d.project_id, ids[i]],
        );
        await c.query("UPDATE activities SET delivered_at = now() WHERE id = $1", [ids[i]]);
      }
    }),
  );
  const pairRate = 2000 / ((performance.now() - t2) / 1000);
  await Promise.all(conns.map((c) => c.end()));

  const hooks = await useWebhookReceiver(d, webhookModeArg("up"));
  const groups = stackGroups(PORT_OFFSET);
  const cpuBefore = snapshot(groups);
  const t0 = performance.now();
  await pool(N, 50, async (i) => {
    const r = await post(`http://127.0.0.1:${3006 + PORT_OFFSET}/webhooks/provider`, messages[i]!, {
      "Content-Type": "text/plain",
    });
    if (r.status !== 200) throw new Error(`receiver answered ${r.status}`);
  });
  const accepted = performance.now() - t0;
  let done = 0;
  while (done < N && performance.now() - t0 < 600_000) {
    done = (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM activities WHERE email_message_id = $1 AND status = 'delivered'",
        [msgId],
      )
    ).rows[0]!.n;
    if (done < N) await new Promise((r) => setTimeout(r, 250));
  }
  const processed = performance.now() - t0;
  // every delivery of a live or test activity is an email.delivered webhook when the project has a URL
  if (hooks.mode === "up") await hooks.waitFor(0, N, 300_000, 10_000);
  const hookedMs = (hooks.lastAt() ?? performance.now()) - t0;
  const hits = hooks.hits();
  const cpu = cpuBetween(cpuBefore, snapshot(groups));
  await hooks.restore();

  await db.end();

  console.log(`notifications: ${N} signed Delivery notifications, 50 in flight`);
  console.log(`  accepted (HTTP 200, queued):        ${(N / (accepted / 1000)).toFixed(0)} /s`);
  console.log(
    `  processed (activity delivered):     ${(done / (processed / 1000)).toFixed(0)} /s  (${done} of ${N}; goal ≥ 1,000/s)`,
  );
  if (hooks.mode === "up")
    console.log(
      `  webhooks received (email.delivered): ${(hits / (hookedMs / 1000)).toFixed(0)} /s  (${hits} of ${N}, the last after ${(hookedMs / 1000).toFixed(1)} s; ${(hookedMs - processed).toFixed(0)} ms after the last delivered)`,
    );
  else console.log(`  webhook receiver ${hooks.mode}`);
  console.log(
    `  CPU ms per notification: ${[...cpu]
      .filter(([, ms]) => ms / N >= 0.005)
      .map(([name, ms]) => `${name} ${(ms / N).toFixed(3)}`)
      .join(", ")}   (PostgreSQL and RabbitMQ: every user of them on this machine)`,
  );
  console.log(`  raw: signature verification alone   ${verifyRate.toFixed(0)} /s`);
  console.log(`  raw: INSERT+UPDATE pair through pg  ${pairRate.toFixed(0)} /s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
