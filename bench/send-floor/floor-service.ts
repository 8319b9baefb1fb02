/**
 * The floor service of bench/send-floor: the hops every email of the real pipeline makes, each done once with the
 * bare libraries and nothing of ours around them (no auth, validation, idempotency, suppressions, quota, MIME,
 * claims, events, tracking or attempt log). Run as its own process, so its CPU is read apart from the load generator.
 *
 * POST /send   → one INSERT of the activity and its outbox row (one statement, one commit) → 200;
 *                then a confirmed persistent publish to a quorum queue and the outbox row's DELETE
 * floor.send   → SES SendEmail through the SDK → one UPDATE of the activity + INSERT of the event's outbox row;
 *                a confirmed publish of the event, the outbox row's DELETE, ack
 * floor.event  → an HMAC-signed POST to the webhook receiver → one INSERT of the delivery, ack
 */
import { createHmac, randomUUID } from "node:crypto";
import http from "node:http";
import { SendEmailCommand } from "@aws-sdk/client-sesv2";
import { createSesClient } from "@emailsvc/provider";
import amqp from "amqplib";
import { Pool } from "pg";
import { Agent, request } from "undici";

const [databaseUrl, rabbitUrl, simulatorUrl, receiverUrl, port] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const SCHEMA = "floor_bench";
const PREFETCH = 50;

async function main() {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA};
    CREATE TABLE ${SCHEMA}.activities (id uuid PRIMARY KEY, recipient text NOT NULL, data jsonb, status text NOT NULL,
      provider_message_id text, created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz);
    CREATE TABLE ${SCHEMA}.outbox (id uuid PRIMARY KEY, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE ${SCHEMA}.deliveries (id uuid PRIMARY KEY, activity_id uuid NOT NULL, status_code int, created_at timestamptz NOT NULL DEFAULT now());`);
  const conn = await amqp.connect(rabbitUrl);
  const pub = await conn.createConfirmChannel();
  for (const q of ["floor.send", "floor.event"]) {
    await pub.deleteQueue(q);
    await pub.assertQueue(q, { durable: true, arguments: { "x-queue-type": "quorum" } });
  }
  const publish = (queue: string, body: object) =>
    new Promise<void>((resolve, reject) =>
      pub.sendToQueue(queue, Buffer.from(JSON.stringify(body)), { persistent: true }, (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  const ses = createSesClient({
    region: "us-east-1",
    endpoint: simulatorUrl,
    accessKeyId: "x",
    secretAccessKey: "x",
  });
  const hooks = new Agent({ connections: 16 });
  const key = "whsec_floor";

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { to: string; data: unknown };
        const id = randomUUID();
        const obId = randomUUID();
        await pool.query(
          `WITH a AS (INSERT INTO ${SCHEMA}.activities (id, recipient, data, status) VALUES ($1, $2, $3, 'queued'))
           INSERT INTO ${SCHEMA}.outbox (id, payload) VALUES ($4, $5)`,
          [id, body.to, JSON.stringify(body.data), obId, JSON.stringify({ id })],
        );
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ success: true, activity_id: id }));
        await publish("floor.send", { id, to: body.to });
        await pool.query(`DELETE FROM ${SCHEMA}.outbox WHERE id = $1`, [obId]);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500).end(String(err));
        else console.error(err);
      }
    });
  });

  const sendCh = await conn.createChannel();
  await sendCh.prefetch(PREFETCH);
  await sendCh.consume("floor.send", async (msg) => {
    if (!msg) return;
    const { id, to } = JSON.parse(msg.content.toString()) as { id: string; to: string };
    const out = await ses.send(
      new SendEmailCommand({
        FromEmailAddress: "demo@example.com",
        Destination: { ToAddresses: [to] },
        Content: { Simple: { Subject: { Data: "floor" }, Body: { Html: { Data: "<p>floor</p>" } } } },
        EmailTags: [{ Name: "activity_id", Value: id }],
      }),
    );
    const obId = randomUUID();
    await pool.query(
      `WITH u AS (UPDATE ${SCHEMA}.activities SET status = 'sent', provider_message_id = $2, sent_at = now() WHERE id = $1)
       INSERT INTO ${SCHEMA}.outbox (id, payload) VALUES ($3, $4)`,
      [id, out.MessageId, obId, JSON.stringify({ type: "email.sent", id })],
    );
    await publish("floor.event", { type: "email.sent", id, at: new Date().toISOString() });
    await pool.query(`DELETE FROM ${SCHEMA}.outbox WHERE id = $1`, [obId]);
    sendCh.ack(msg);
  });

  const eventCh = await conn.createChannel();
  await eventCh.prefetch(PREFETCH);
  await eventCh.consume("floor.event", async (msg) => {
    if (!msg) return;
    const raw = msg.content.toString();
    const { id } = JSON.parse(raw) as { id: string };
    const res = await request(receiverUrl, {
      method: "POST",
      dispatcher: hooks,
      headers: {
        "content-type": "application/json",
        "x-signature": `sha256=${createHmac("sha256", key).update(raw).digest("hex")}`,
      },
      body: raw,
    });
    await res.body.text();
    await pool.query(`INSERT INTO ${SCHEMA}.deliveries (id, activity_id, status_code) VALUES ($1, $2, $3)`, [
      randomUUID(),
      id,
      res.statusCode,
    ]);
    eventCh.ack(msg);
  });

  server.listen(Number(port), "127.0.0.1", () => process.send?.("ready"));
  process.on("SIGTERM", async () => {
    server.close();
    await conn.close().catch(() => undefined);
    await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
    await pool.end();
    process.exit(0);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
