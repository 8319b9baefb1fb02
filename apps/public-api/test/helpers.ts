// Test harness: the real app (createApp / createInternalApp) on real PostgreSQL (the preset's migrated DB),
// RabbitMQ (own vhost), Redis and s3rver in-process. Nothing is mocked; a test may swap in its own downloader.
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { Exchanges, messagingTopology, RoutingKeys, type Envelope, type Topology } from "@emailsvc/contracts";
import { createProject } from "@emailsvc/db";
import { createBroker, type Broker } from "@emailsvc/messaging";
import type { Express } from "express";
import { createApp, createInternalApp } from "../src/app";
import { createDeps, type Deps } from "../src/deps";
import { readEnv, type Env } from "../src/env";

export const ENCRYPTION_KEY = "ab".repeat(32);

export async function startS3(bucket = "attachments"): Promise<{
  endpoint: string;
  bucket: string;
  getObject(key: string): Promise<Buffer | null>;
  close(): Promise<void>;
}> {
  const dir = mkdtempSync(path.join(tmpdir(), "public-api-s3-"));
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const addr = await server.run();
  const endpoint = `http://127.0.0.1:${addr.port}`;
  return {
    endpoint,
    bucket,
    async getObject(key) {
      const res = await fetch(`${endpoint}/${bucket}/${key.split("/").map(encodeURIComponent).join("/")}`);
      return res.ok ? Buffer.from(await res.arrayBuffer()) : null;
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function testEnv(overrides: Record<string, string> = {}): Env {
  return readEnv({
    ...process.env,
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    API_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    ADMIN_TOKEN: "admin-token-for-tests-0123456789",
    TRACKING_SECRET: "tracking-secret-for-tests-0123",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    SEND_RPC_TIMEOUT_MS: "3000",
    OUTBOX_RELAY_INTERVAL_MS: "200",
    ...overrides,
  });
}

export interface Harness {
  deps: Deps;
  app: Express;
  internal: Express;
  close(): Promise<void>;
}

/** The service as main.ts builds it (deps, both apps, the running outbox relay); `tweak` may replace deps. */
export async function startHarness(
  env: Env,
  opts: { tweak?: (deps: Deps) => void; redisDown?: boolean } = {},
): Promise<Harness> {
  const deps = await createDeps(env);
  opts.tweak?.(deps);
  await deps.broker.ready();
  // Without the cache connected, requests would (correctly) skip it; tests of the cache need it up first.
  if (!opts.redisDown && deps.redis.status !== "ready") await once(deps.redis, "ready");
  deps.outbox.start();
  return {
    deps,
    app: createApp(deps),
    internal: createInternalApp(deps),
    async close() {
      await deps.outbox.stop();
      await deps.closeExtras();
      await deps.broker.close();
      await deps.db.close();
    },
  };
}

export interface TestProject {
  projectId: string;
  liveKey: string;
  testKey: string;
  sender: string;
}

let seq = 0;
/** A project with its keys and one verified sender address. */
export async function makeProject(deps: Deps, opts: { verifiedSender?: boolean } = {}): Promise<TestProject> {
  seq++;
  const { project, liveKey, testKey } = await createProject(
    deps.db,
    { name: `test project ${seq}` },
    ENCRYPTION_KEY,
  );
  const sender = `sender${seq}@verified-${seq}.example.com`;
  if (opts.verifiedSender !== false) {
    await deps.db.prisma.senderProfile.create({
      data: {
        projectId: project.id,
        senderEmail: sender,
        senderName: "Shop",
        emailVerified: true,
        active: true,
      },
    });
  }
  return { projectId: project.id, liveKey, testKey, sender };
}

export async function suppress(deps: Deps, projectId: string, email: string, reason: string): Promise<void> {
  await deps.db.prisma.suppression.create({ data: { projectId, email: email.toLowerCase(), reason } });
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

export async function count(deps: Deps, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await deps.db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, params);
  return Number(rows[0]!.n);
}

/** A test-only queue bound to email.commands, to see what the outbox relay published. */
export const TEST_COMMANDS_QUEUE = "public-api-test.send-requested";
const observerTopology: Topology = {
  exchanges: messagingTopology.exchanges,
  queues: [
    ...messagingTopology.queues,
    {
      name: TEST_COMMANDS_QUEUE,
      bindings: [{ exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailSendRequested }],
      retry: null,
    },
  ],
};

export interface CommandObserver {
  broker: Broker;
  received: Envelope<{ activityIds: string[] }>[];
  waitFor(
    pred: (e: Envelope<{ activityIds: string[] }>) => boolean,
    timeoutMs?: number,
  ): Promise<Envelope<{ activityIds: string[] }>>;
}

export async function observeSendRequests(): Promise<CommandObserver> {
  const broker = createBroker({
    url: process.env.RABBITMQ_URL!,
    name: "public-api-test-observer",
    topology: observerTopology,
    reconnectSeconds: 0.3,
  });
  await broker.ready();
  const received: Envelope<{ activityIds: string[] }>[] = [];
  await broker.consumeRaw<{ activityIds: string[] }>(TEST_COMMANDS_QUEUE, (env) => void received.push(env), {
    prefetch: 50,
  });
  return {
    broker,
    received,
    waitFor: (pred, timeoutMs = 5000) =>
      waitFor(() => received.find(pred), timeoutMs, "an email.send-requested message"),
  };
}

export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A local HTTP server for attachment URLs; `hits` counts every request it received. */
export async function startFileServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host = "127.0.0.1",
): Promise<{ url: string; port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    handler(req, res);
  });
  server.listen(0, host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const PDF_BYTES = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
export const ICS_TEXT = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n";
