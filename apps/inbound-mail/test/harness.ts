/**
 * The real stack around inbound-mail, on this package's own PostgreSQL database and RabbitMQ vhost: s3rver and
 * the provider simulator in-process, public-api, send-worker and webhook-dispatcher as child processes (their
 * own main.ts under tsx, as `pnpm start` runs them), inbound-mail in-process (or as a child, to be SIGKILLed).
 * Nothing is faked: a send goes public API → send-worker → simulator, a reply is injected through the simulator
 * (MIME in S3, an SNS-signed Received notification to POST /api/inbound/provider), and the webhook reaches a
 * local receiver through webhook-dispatcher.
 */
import type { ChildProcess } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Express } from "express";
import { createDb, createProject, type Db } from "@emailsvc/db";
import { createLogger } from "@emailsvc/observability";
import {
  createS3Client,
  putObject,
  readSnsTestFixtures,
  signSnsMessage,
  type S3ClientType,
} from "@emailsvc/provider";
import { createSimulator, type Simulator } from "@emailsvc/provider-simulator";
import { freePort, spawnTs, startS3, stopEvery, type TestS3, waitFor } from "@emailsvc/testing";
export { freePort };
import { createApp } from "../src/app";
import { inboundConsumer } from "../src/replies/inbound.consumer";
import { createDeps, type Deps } from "../src/deps";
import { readEnv } from "../src/env";
import { processDepsOf } from "../src/process-deps";

export const ENCRYPTION_KEY = "cd".repeat(32);
export const TRACKING_SECRET = "inbound-tracking-secret-0123456789";
export const ADMIN_TOKEN = "inbound-admin-token-0123456789";
/** The internal routes' credential (x-internal-token) of the stack's public-api. */
export const INTERNAL_TOKEN = "inbound-internal-token-0123456789abcdef";
export const INBOUND_DOMAIN = "inbound.test";
export const INBOUND_TOPIC = "arn:aws:sns:us-east-1:000000000000:ses-inbound";
export const BUCKET = "inbound-mail";
const root = path.resolve(__dirname, "../../..");
const logDir = path.join(root, ".local", `test-inbound-${process.env.TEST_RUN_ID ?? "run"}`);

export interface Child {
  name: string;
  proc: ChildProcess;
  port: number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `apps/<name>/src/main.ts` and waits for its /readyz. */
export async function spawnService(
  name: string,
  env: Record<string, string>,
  port: number,
  timeoutMs = 150_000,
): Promise<Child> {
  fs.mkdirSync(logDir, { recursive: true });
  const out = fs.openSync(path.join(logDir, `${name}.log`), "a");
  const proc = spawnTs(`apps/${name}/src/main.ts`, {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", out, out],
  });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  await waitFor(
    async () => {
      if (proc.exitCode !== null)
        throw new Error(`${name} exited (${proc.exitCode}); see ${logDir}/${name}.log`);
      return fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    timeoutMs,
    `${name} to be ready`,
    200,
  );
  return {
    name,
    proc,
    port,
    // A service that has not exited 15 s after SIGTERM (a drain that hangs) is SIGKILLed: a stop that waited for
    // ever ran the file's afterAll out of time, and left the rest of the stack running.
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Hit {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}

/** A local webhook receiver answering 200 (or `status`; a list: one status per request, then 200). */
export async function startReceiver(status: number | number[] = 200) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      hits.push({ headers: req.headers, body, path: req.url ?? "" });
      res.statusCode = Array.isArray(status) ? (status[hits.length - 1] ?? 200) : status;
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hits,
    url: (p = "/hook") => `${base}${p}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface InboundProcess {
  url: string;
  deps?: Deps;
  /** the in-process app (its routes for the route-coverage checks) */
  app?: Express;
  child?: Child;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface Stack {
  db: Db;
  s3: TestS3;
  s3Client: S3ClientType;
  sim: Simulator;
  env: Record<string, string>;
  publicApi: string;
  /** public-api's internal port (POST /send-email, /admin) */
  internalApi: string;
  inboundPort: number;
  inbound: InboundProcess;
  children: Child[];
  /** Starts inbound-mail again (in-process, or as a child process) after a stop. */
  startInbound(mode?: "in-process" | "child", extra?: Record<string, string>): Promise<InboundProcess>;
  close(): Promise<void>;
}

export async function startStack(
  opts: { inbound?: "in-process" | "child"; extraEnv?: Record<string, string> } = {},
): Promise<Stack> {
  const db = createDb(process.env.DATABASE_URL!, { max: 10 });
  const s3 = await startS3(BUCKET);
  const s3Client = createS3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  const [apiPort, apiInternal, wdPort, swPort, inboundPort] = (await Promise.all(
    Array.from({ length: 5 }, () => freePort()),
  )) as [number, number, number, number, number];
  const inboundUrl = `http://127.0.0.1:${inboundPort}`;
  const sim = createSimulator({
    port: 0,
    s3: { endpoint: s3.endpoint, bucket: BUCKET },
    inboundNotificationUrl: `${inboundUrl}/api/inbound/provider`,
    logger: createLogger({ service: "sim", level: "silent" }),
    notificationRetryDelayMs: 100,
  });
  const simUrl = await sim.start();
  const env: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
    HOST: "127.0.0.1",
    DATABASE_URL: process.env.DATABASE_URL!,
    RABBITMQ_URL: process.env.RABBITMQ_URL!,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
    API_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    ADMIN_TOKEN,
    INTERNAL_TOKEN,
    TRACKING_SECRET,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    SES_ENDPOINT: simUrl,
    SNS_ENDPOINT: simUrl,
    S3_ENDPOINT: s3.endpoint,
    INBOUND_DOMAIN,
    PUBLIC_BASE_URL: inboundUrl,
    SNS_CERT_HOST_PATTERN: "^127\\.0\\.0\\.1$",
    SNS_ALLOW_HTTP_CERT_URLS: "true",
    SNS_ALLOW_ANY_TOPIC: "true",
    INBOUND_SNS_TOPIC_ARNS: INBOUND_TOPIC,
    INBOUND_BUCKET: BUCKET,
    WEBHOOK_URL_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_DELAYS_MS: "200,400,800,1600",
    WEBHOOK_DEFER_MS: "200,400",
    WEBHOOK_PROBE_MS: "200,400",
    WEBHOOK_URL_CACHE_MS: "0",
    SEND_RATE_PER_SECOND: "0",
    ATTACHMENTS_BUCKET: BUCKET,
    OUTBOX_RELAY_INTERVAL_MS: "200",
    ...opts.extraEnv,
  };
  // Whatever started is stopped again when the rest fails: a stack left half-started kept consuming the package's
  // vhost, and the package's later files failed on it.
  const started = await Promise.allSettled([
    spawnService("public-api", { ...env, INTERNAL_PORT: String(apiInternal) }, apiPort),
    spawnService("send-worker", env, swPort),
    spawnService("webhook-dispatcher", env, wdPort),
  ]);
  const children = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  /** Everything but inbound-mail: on a failed start, and at the end of close(). */
  const stopStarted = () =>
    stopEvery([
      () => Promise.all(children.map((c) => c.stop())),
      () => sim.stop(),
      () => s3Client.destroy(),
      () => s3.close(),
      () => db.close(),
    ]);
  const failed = started.find((r) => r.status === "rejected");
  if (failed) {
    await stopStarted();
    throw failed.reason;
  }

  const startInbound = async (
    mode: "in-process" | "child" = "in-process",
    extra: Record<string, string> = {},
  ): Promise<InboundProcess> => {
    if (mode === "child") {
      const child = await spawnService("inbound-mail", { ...env, ...extra }, inboundPort);
      return { url: inboundUrl, child, stop: (signal) => child.stop(signal) };
    }
    const deps = await createDeps(readEnv({ ...env, ...extra, PORT: String(inboundPort) }));
    await deps.broker.ready();
    const app = createApp(deps);
    const server = http.createServer(app);
    await new Promise<void>((r) => server.listen(inboundPort, "127.0.0.1", r));
    const consumer = await deps.broker.consume(inboundConsumer(processDepsOf(deps)), { prefetch: 8 });
    return {
      url: inboundUrl,
      deps,
      app,
      // Every step runs even when one before it fails or hangs (15 s): a consumer or outbox relay left running
      // outlives this file (jest runs a package's files in one process) and took the next file's messages.
      async stop() {
        await stopEvery([
          () => consumer.close(),
          () => {
            server.closeAllConnections();
            return new Promise((r) => server.close(r));
          },
          () => deps.outbox.stop(),
          () => deps.broker.close(),
          () => deps.db.close(),
          () => deps.s3.destroy(),
          () => deps.sesV1.destroy(),
        ]);
      },
    };
  };
  let inbound: InboundProcess;
  try {
    inbound = await startInbound(opts.inbound ?? "in-process");
  } catch (err) {
    await stopStarted();
    throw err;
  }
  const stack: Stack = {
    db,
    s3,
    s3Client,
    sim,
    env,
    publicApi: `http://127.0.0.1:${apiPort}`,
    internalApi: `http://127.0.0.1:${apiInternal}`,
    inboundPort,
    inbound,
    children,
    startInbound: async (mode, extra) => (stack.inbound = await startInbound(mode, extra)),
    async close() {
      // Reported, not thrown: the file's own results stand, and the rest of the stack still stops.
      await stack.inbound.stop().catch((err: unknown) => console.warn("inbound-mail stop:", err));
      await stopStarted();
    },
  };
  return stack;
}

export interface Project {
  projectId: string;
  liveKey: string;
  testKey: string;
  sender: string;
}

let seq = 0;
/** A project with a verified sender and, when given, its inbound URLs. */
export async function makeProject(
  db: Db,
  urls: { live?: string | null; dev?: string | null } = {},
): Promise<Project> {
  seq++;
  const { project, liveKey, testKey } = await createProject(db, { name: `inbound ${seq}` }, ENCRYPTION_KEY);
  const sender = `shop${seq}@shop${seq}.example.com`;
  await db.prisma.senderProfile.create({
    data: {
      projectId: project.id,
      senderEmail: sender,
      senderName: "Shop",
      emailVerified: true,
      active: true,
    },
  });
  await db.pool.query(
    "UPDATE projects SET inbound_webhook_url = $2, inbound_webhook_url_dev = $3 WHERE id = $1",
    [project.id, urls.live ?? null, urls.dev ?? null],
  );
  return { projectId: project.id, liveKey, testKey, sender };
}

export interface SentEmail {
  activityId: string;
  replyToken: string;
  /** the Message-ID the recipient's copy carries, `<…@email.amazonses.com>` */
  messageId: string;
  subject: string;
  recipient: string;
  replyTo: string;
}

/** POST /v1/send-email through public-api, then waits until send-worker has sent it (status sent, message_id). */
export async function sendEmail(
  stack: Stack,
  key: string,
  p: Project,
  input: { to?: string; subject?: string; data?: Record<string, unknown> } = {},
): Promise<SentEmail> {
  const recipient = input.to ?? `customer-${randomUUID().slice(0, 8)}@example.org`;
  const subject = input.subject ?? `Order ${randomUUID().slice(0, 6)} shipped`;
  const res = await fetch(`${stack.publicApi}/v1/send-email`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      recipient_email: recipient,
      sender_email: p.sender,
      subject,
      html_body: "<p>Your order is on its way.</p>",
      ...(input.data ? { data: input.data } : {}),
    }),
  });
  const body = (await res.json()) as { email_id?: string; error?: string };
  if (res.status !== 200 || !body.email_id)
    throw new Error(`send failed: ${res.status} ${JSON.stringify(body)}`);
  const row = await waitFor(
    async () =>
      (
        await stack.db.pool.query<{
          id: string;
          reply_token: string;
          message_id: string | null;
          provider_message_id: string;
        }>(
          "SELECT id, reply_token, message_id, provider_message_id FROM activities WHERE email_message_id = $1 AND status <> 'queued' AND message_id IS NOT NULL",
          [body.email_id],
        )
      ).rows[0],
    20_000,
    "the send to be sent",
  );
  const sent = stack.sim.state.messagesById.get(row.provider_message_id);
  if (!sent) throw new Error("the simulator has no such message");
  const replyTo = sent.headers.find((h) => h.name.toLowerCase() === "reply-to")?.value ?? "";
  return {
    activityId: row.id,
    replyToken: row.reply_token,
    messageId: sent.deliveredMessageId,
    subject,
    recipient,
    replyTo,
  };
}

export interface InjectInput {
  from: string;
  to: string | string[];
  cc?: string | string[];
  subject: string;
  text?: string;
  html?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string | string[];
  headers?: Record<string, string>;
  attachments?: { filename: string; content: string; encoding?: "base64" | "utf8"; contentType?: string }[];
  verdicts?: Record<string, string>;
  raw?: string;
}

/** Injects a received email through the simulator and waits for the receiver's answer. */
export async function inject(
  stack: Stack,
  input: InjectInput,
): Promise<{ messageId: string; objectKey: string; status: string }> {
  const res = await fetch(`${stack.sim.url}/_sim/inbound?wait=1`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(
      input.raw ? { raw: input.raw, ...(input.verdicts ? { verdicts: input.verdicts } : {}) } : input,
    ),
  });
  const out = (await res.json()) as {
    messageId: string;
    objectKey: string;
    notification: { status: string; lastError?: string };
  };
  return { messageId: out.messageId, objectKey: out.objectKey, status: out.notification.status };
}

const fixtures = readSnsTestFixtures();

/**
 * Posts an SNS-signed Received notification of our own making (what the simulator would send), for the cases the
 * simulator does not produce: a MIME stored as is (bad input), another bucket, a redelivery.
 */
export async function postNotification(
  stack: Stack,
  message: Record<string, unknown>,
  opts: { snsMessageId?: string; topicArn?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; snsMessageId: string }> {
  const snsMessageId = opts.snsMessageId ?? randomUUID();
  const signed = signSnsMessage(
    {
      Type: "Notification",
      MessageId: snsMessageId,
      TopicArn: opts.topicArn ?? INBOUND_TOPIC,
      Message: JSON.stringify(message),
      Timestamp: new Date().toISOString(),
    },
    { privateKeyPem: fixtures.privateKeyPem, certUrl: `${stack.sim.url}/_sim/cert.pem` },
  );
  const res = await fetch(`${stack.inbound.url}/api/inbound/provider`, {
    method: "POST",
    headers: { "content-type": "text/plain; charset=UTF-8" },
    body: JSON.stringify(signed),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, snsMessageId };
}

/** A Received notification (SES's shape) for a MIME stored at `objectKey`. */
export function receivedMessage(
  sesMessageId: string,
  objectKey: string,
  recipients: string[],
  extra: { bucketName?: string; source?: string; dmarc?: string } = {},
): Record<string, unknown> {
  return {
    notificationType: "Received",
    mail: {
      timestamp: new Date().toISOString(),
      source: extra.source ?? "someone@example.org",
      messageId: sesMessageId,
      destination: recipients,
    },
    receipt: {
      timestamp: new Date().toISOString(),
      recipients,
      spamVerdict: { status: "PASS" },
      virusVerdict: { status: "PASS" },
      spfVerdict: { status: "PASS" },
      dkimVerdict: { status: "PASS" },
      dmarcVerdict: { status: extra.dmarc ?? "PASS" },
      action: { type: "S3", topicArn: INBOUND_TOPIC, bucketName: extra.bucketName ?? BUCKET, objectKey },
    },
  };
}

/** Stores `raw` in the inbound bucket and posts its signed notification. */
export async function deliverRaw(
  stack: Stack,
  raw: string | Buffer,
  recipients: string[],
  extra: { bucketName?: string; dmarc?: string } = {},
) {
  const sesMessageId = randomUUID().replace(/-/g, "");
  const objectKey = `inbound/${sesMessageId}`;
  await putObject(stack.s3Client, { bucket: BUCKET, key: objectKey, body: raw });
  // the simulator's SendBounce bounces only messages it received
  stack.sim.state.inbound.push({
    messageId: sesMessageId,
    timestamp: new Date().toISOString(),
    source: "someone@example.org",
    destination: recipients,
    bucketName: BUCKET,
    objectKey,
    raw: raw.toString(),
  });
  const message = receivedMessage(sesMessageId, objectKey, recipients, extra);
  const posted = await postNotification(stack, message);
  // `message`: to post the same notification again (SNS redelivering it), with `snsMessageId`
  return { ...posted, sesMessageId, objectKey, message };
}

export interface InboundRow {
  id: string;
  project_id: string | null;
  thread_id: string | null;
  activity_id: string | null;
  matched_by: string | null;
  kind: string;
  forward: string;
  suspicious: boolean;
  reply_text: string;
  is_test: boolean;
  from_email: string;
  subject: string;
}

/** The stored reply of a SES message id, once processed. */
export async function inboundOf(stack: Stack, sesMessageId: string, timeoutMs = 30_000): Promise<InboundRow> {
  return waitFor(
    async () =>
      (
        await stack.db.pool.query<InboundRow>(
          `SELECT m.* FROM inbound_notifications n JOIN inbound_messages m ON m.id = n.inbound_message_id
            WHERE n.ses_message_id = $1`,
          [sesMessageId],
        )
      ).rows[0],
    timeoutMs,
    `the reply of ${sesMessageId} to be stored`,
  );
}

/** The notification's final state (anything but `received`). */
export async function notificationOf(stack: Stack, sesMessageId: string, timeoutMs = 30_000) {
  return waitFor(
    async () =>
      (
        await stack.db.pool.query<{
          status: string;
          error: string | null;
          size: number | null;
          inbound_message_id: string | null;
        }>(
          "SELECT status, error, size, inbound_message_id FROM inbound_notifications WHERE ses_message_id = $1 AND status <> 'received'",
          [sesMessageId],
        )
      ).rows[0],
    timeoutMs,
    `the notification of ${sesMessageId} to be finished`,
  );
}

export const hmacHex = (key: string, body: string) => createHmac("sha256", key).update(body).digest("hex");
