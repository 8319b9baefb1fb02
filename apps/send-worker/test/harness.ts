// Real PostgreSQL (own database), RabbitMQ (own vhost), Redis, s3rver and the provider simulator in-process.
import { waitFor as sharedWaitFor } from "@emailsvc/testing";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Redis from "ioredis";
import S3rver from "s3rver";
import { messagingTopology, projectIdOf, type ProjectId } from "@emailsvc/contracts";
import { createDb, createSendStatements, type Db } from "@emailsvc/db";
import { createBroker, type Broker } from "@emailsvc/messaging";
import { createLogger } from "@emailsvc/observability";
import { createS3Client, createSesClient, putObject } from "@emailsvc/provider";
import { createSimulator, type Simulator } from "@emailsvc/provider-simulator";
import { createRateLimiter } from "../src/infra/rate-limiter";
import type { SendActivityDeps } from "../src/use-cases/send-activity";

export const TRACKING = { baseUrl: "https://mail.example.test", secret: "t".repeat(32) };

export interface Harness {
  db: Db;
  broker: Broker;
  redis: Redis;
  sim: Simulator;
  simUrl: string;
  s3Endpoint: string;
  deps: SendActivityDeps;
  close(): Promise<void>;
}

export async function startHarness(
  opts: { ratePerSecond?: number; latencyMs?: number } = {},
): Promise<Harness> {
  const db = createDb(process.env.DATABASE_URL!, { max: 20 });
  const logger = createLogger({ service: "send-worker-test", level: "silent" });
  const broker = createBroker({
    url: process.env.RABBITMQ_URL!,
    name: "test",
    topology: messagingTopology,
    logger,
  });
  await broker.ready();
  const redis = new Redis(process.env.REDIS_URL!);
  const dir = mkdtempSync(path.join(tmpdir(), "send-worker-s3-"));
  const s3server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory: dir,
    silent: true,
    configureBuckets: [{ name: "attachments", configs: [] }],
  });
  const s3addr = await s3server.run();
  const s3Endpoint = `http://127.0.0.1:${s3addr.port}`;
  const sim = createSimulator({ port: 0, ...(opts.latencyMs ? { latencyMs: opts.latencyMs } : {}) });
  const simUrl = await sim.start();
  const creds = { region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }; // s3rver's default credentials
  const deps: SendActivityDeps = {
    db,
    statements: createSendStatements(db),
    // as deps.ts: the worker, not the SDK, retries (maxAttempts 1)
    ses: createSesClient({ ...creds, endpoint: simUrl, requestTimeoutMs: 5000, maxAttempts: 1 }),
    s3: createS3Client({ ...creds, endpoint: s3Endpoint }),
    limiter: createRateLimiter(redis, {
      perSecond: opts.ratePerSecond ?? 0,
      key: `test-rate:${randomUUID()}`,
    }),
    logger,
    attachmentsBucket: "attachments",
    inboundDomain: "inbound.example.test",
    tracking: TRACKING,
    kickOutbox: () => undefined,
    messageCache: new Map(),
  };
  return {
    db,
    broker,
    redis,
    sim,
    simUrl,
    s3Endpoint,
    deps,
    async close() {
      await broker.close();
      await sim.stop();
      await s3server.close();
      rmSync(dir, { recursive: true, force: true });
      redis.disconnect();
      await db.close();
    },
  };
}

export interface NewSend {
  recipients: string[];
  fromName?: string | null;
  html?: string;
  text?: string | null;
  cc?: string[];
  bcc?: string[];
  headers?: Record<string, string>;
  attachments?: { filename: string; contentType: string; content: Buffer }[];
  data?: Record<string, unknown>[];
  templateId?: string | null;
  replyTokens?: boolean;
  /** The project's live webhook URL (client events are written to the outbox only when there is one). */
  webhookUrl?: string | null;
  /** The recipients of a /v1/send-batch call with this email_type. */
  batch?: { emailType: string };
}

/** Inserts what public-api's accept transaction writes: project, message, queued activities, reply tokens. */
export async function insertSend(
  h: Harness,
  s: NewSend,
): Promise<{ projectId: ProjectId; messageId: string; activityIds: string[] }> {
  const projectId = projectIdOf(randomUUID());
  await h.db.pool.query("INSERT INTO projects (id, name, webhook_url) VALUES ($1, 'p', $2)", [
    projectId,
    s.webhookUrl === undefined ? "https://hooks.example.test/events" : s.webhookUrl,
  ]);
  const attachments = [];
  for (const a of s.attachments ?? []) {
    const key = `${projectId}/${randomUUID()}/${a.filename}`;
    await putObject(h.deps.s3, { bucket: "attachments", key, body: a.content, contentType: a.contentType });
    attachments.push({
      filename: a.filename,
      contentType: a.contentType,
      size: a.content.length,
      storageKey: key,
    });
  }
  const messageId = randomUUID();
  await h.db.pool.query(
    `INSERT INTO email_messages (id, project_id, source, from_email, from_name, subject, html, text, cc, bcc, headers, attachments, template_id, email_type)
     VALUES ($1, $2, 'api', 'sender@example.com', $3, 'Hello {{name}}', $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      messageId,
      projectId,
      s.fromName === undefined ? "Sender Name" : s.fromName,
      s.html ?? '<html><body><p>Hi</p><a href="https://shop.example/p?a=1&amp;b=2">shop</a></body></html>',
      s.text ?? null,
      s.cc ?? [],
      s.bcc ?? [],
      s.headers ? JSON.stringify(s.headers) : null,
      attachments.length ? JSON.stringify(attachments) : null,
      s.templateId ?? null,
      s.batch?.emailType ?? "transactional",
    ],
  );
  const batchId = s.batch ? randomUUID() : null;
  if (s.batch)
    await h.db.pool.query(
      "INSERT INTO batches (id, project_id, total, queued, status, email_type) VALUES ($1, $2, $3, $3, 'queued', $4)",
      [batchId, projectId, s.recipients.length, s.batch.emailType],
    );
  const activityIds: string[] = [];
  for (const [i, r] of s.recipients.entries()) {
    const id = randomUUID();
    const token = s.replyTokens === false ? null : randomUUID().replace(/-/g, "").slice(0, 8);
    await h.db.pool.query(
      `INSERT INTO activities (id, project_id, email_message_id, recipient, status, reply_token, data, created_at, batch_id)
       VALUES ($1, $2, $3, $4, 'queued', $5, $6, now() + ($7 || ' milliseconds')::interval, $8)`,
      [
        id,
        projectId,
        messageId,
        r,
        token,
        s.data?.[i] ? JSON.stringify(s.data[i]) : null,
        String(i),
        batchId,
      ],
    );
    if (token)
      await h.db.pool.query("INSERT INTO reply_tokens (token, project_id, activity_id) VALUES ($1, $2, $3)", [
        token,
        projectId,
        id,
      ]);
    activityIds.push(id);
  }
  return { projectId, messageId, activityIds };
}

export async function simMessages(
  h: Harness,
  to?: string,
): Promise<{ raw: string; to: string[]; cc: string[]; bcc: string[] }[]> {
  const res = await fetch(`${h.simUrl}/_sim/messages${to ? `?to=${encodeURIComponent(to)}` : ""}`);
  return ((await res.json()) as { messages: { raw: string; to: string[]; cc: string[]; bcc: string[] }[] })
    .messages;
}

export async function activityRow(h: Harness, id: string) {
  return (await h.db.pool.query("SELECT * FROM activities WHERE id = $1", [id])).rows[0] as Record<
    string,
    unknown
  >;
}

/** Polls every 100 ms, for up to 20 s by default (the worker's sends take their time). */
export const waitFor = <T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> =>
  sharedWaitFor(fn, timeoutMs, "condition", 100);
