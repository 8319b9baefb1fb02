/**
 * bench/webhooks (issue: delivery feedback). Against a running `pnpm start`:
 * 20,000 `email.delivered` events (for 20,000 test-mode activities created directly in the database) published
 * to the `email.events` exchange; the webhook-dispatcher builds, stores, signs and POSTs each to a local
 * receiver (the demo project's webhook_url_dev points at it for the run) and logs the attempt. Prints
 * deliveries/s (first publish → last request received, and → last attempt logged in PostgreSQL) and, in the
 * same run, the raw baseline: the same number of POSTs of a stored body straight to the receiver with undici,
 * as many in flight as the dispatcher's prefetch. Every received signature is checked.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development webhooks/run.ts [--n 20000]
 */
import { createHmac, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "pg";
import { Agent, request } from "undici";
import { Exchanges, makeEnvelope, projectIdOf, RoutingKeys } from "@emailsvc/contracts";
import { createBroker } from "@emailsvc/messaging";
import { DATABASE_URL, demo, numArg, RABBITMQ_URL } from "../lib/stack";

const d = demo();
const N = numArg("n", 20000);
const IN_FLIGHT = 50; // WEBHOOK_PREFETCH's default

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
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const saved = (
    await db.query<{ webhook_url_dev: string | null }>("SELECT webhook_url_dev FROM projects WHERE id = $1", [
      d.project_id,
    ])
  ).rows[0]!.webhook_url_dev;
  await db.query("UPDATE projects SET webhook_url_dev = $2 WHERE id = $1", [d.project_id, url]);

  const msgId = randomUUID();
  const ids = Array.from({ length: N }, () => randomUUID());
  await db.query(
    "INSERT INTO email_messages (id, project_id, is_test, source, from_email, subject, html) VALUES ($1, $2, true, 'api', $3, 'bench', 'x')",
    [msgId, d.project_id, d.sender_email],
  );
  await db.query(
    `INSERT INTO activities (id, project_id, email_message_id, is_test, recipient, status, provider_message_id, delivered_at)
     SELECT a, $1, $2, true, 'bench@example.com', 'delivered', 'wh-' || a::text, now() FROM unnest($3::uuid[]) AS a`,
    [d.project_id, msgId, ids],
  );
  const projectId = projectIdOf(d.project_id);
  const events = ids.map((activityId) =>
    makeEnvelope(
      RoutingKeys.emailDelivered,
      { activityId, projectId, isTest: true, occurredAt: new Date().toISOString() },
      { projectId },
    ),
  );

  const broker = createBroker({
    url: RABBITMQ_URL,
    name: "bench-webhooks",
  });
  const t0 = performance.now();
  for (let i = 0; i < N; i += 500) {
    await broker.publishMany(
      events.slice(i, i + 500).map((envelope) => ({
        exchange: Exchanges.emailEvents,
        routingKey: RoutingKeys.emailDelivered,
        envelope,
      })),
    );
  }
  const published = performance.now() - t0;
  while (received < N && performance.now() - t0 < 600_000) await new Promise((r) => setTimeout(r, 50));
  const toReceiver = lastAt - t0;
  let logged = 0;
  while (logged < N && performance.now() - t0 < 600_000) {
    logged = (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1::text[]) AND status = 'succeeded'",
        [events.map((e) => e.id)],
      )
    ).rows[0]!.n;
    if (logged < N) await new Promise((r) => setTimeout(r, 250));
  }
  const toLogged = performance.now() - t0;
  await broker.close();
  await db.query("UPDATE projects SET webhook_url_dev = $2 WHERE id = $1", [d.project_id, saved]);

  // Raw baseline: the same number of POSTs of one stored body, straight to the receiver.
  const body = JSON.stringify({ event: "email.delivered", is_test: true, data: { activity_id: ids[0] } });
  const signature = `sha256=${createHmac("sha256", d.test_key).update(body).digest("hex")}`;
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  received = 0;
  let next = 0;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < N) {
        next++;
        const res = await request(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-svc-signature": signature },
          body,
          dispatcher: agent,
        });
        await res.body.text();
      }
    }),
  );
  const raw = performance.now() - t1;
  await agent.close();
  await db.end();
  receiver.close();

  console.log(`webhooks: ${N} email.delivered events → webhook-dispatcher → local receiver`);
  console.log(`  published to RabbitMQ in ${(published / 1000).toFixed(1)} s`);
  console.log(
    `  delivered: ${(N / (toReceiver / 1000)).toFixed(0)} deliveries/s (last request received after ${(toReceiver / 1000).toFixed(1)} s); ` +
      `${(N / (toLogged / 1000)).toFixed(0)}/s counting until every attempt is logged succeeded (${logged})`,
  );
  console.log(`  signatures checked: ${N - badSignatures} valid, ${badSignatures} invalid`);
  console.log(
    `  raw baseline (undici POST → receiver, ${IN_FLIGHT} in flight): ${(N / (raw / 1000)).toFixed(0)} requests/s   (goal: ≥ 500 deliveries/s)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
