// Test harness: the real app (createApp / createInternalApp) on real PostgreSQL (the preset's migrated DB),
// RabbitMQ (own vhost), Redis and s3rver in-process. Nothing is mocked; a test may swap in its own downloader.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { projectFactory, startS3, type TestProject as AnyTestProject, waitFor } from "@emailsvc/testing";
import {
  Exchanges,
  messagingTopology,
  RoutingKeys,
  type Envelope,
  type ProjectId,
  type Topology,
} from "@emailsvc/contracts";
import { createProject } from "@emailsvc/db";
import { createBroker, type Broker } from "@emailsvc/messaging";
import type { Express } from "express";
import { createApp, createInternalApp } from "../src/app";
import { createDeps, type Deps } from "../src/deps";
import { readEnv, type Env } from "../src/env";

export const ENCRYPTION_KEY = "ab".repeat(32);
export const INTERNAL_TOKEN = "internal-token-for-tests-0123456789abcdef";

export { startS3 };

export function testEnv(overrides: Record<string, string> = {}): Env {
  return readEnv({
    ...process.env,
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    API_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    ADMIN_TOKEN: "admin-token-for-tests-0123456789",
    INTERNAL_TOKEN,
    TRACKING_SECRET: "tracking-secret-for-tests-0123",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    SEND_RPC_TIMEOUT_MS: "3000",
    OUTBOX_RELAY_INTERVAL_MS: "200",
    // the fuzz and auth tests send thousands of bad keys from 127.0.0.1; auth-failures.int.test.ts turns it on
    AUTH_FAILURE_LIMIT: "0",
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
    internal: withInternalToken(createInternalApp(deps), env.INTERNAL_TOKEN),
    async close() {
      await deps.outbox.stop();
      await deps.closeExtras();
      await deps.broker.close();
      await deps.db.close();
    },
  };
}

/**
 * The internal app as a platform caller uses it: every request carries the internal token unless it sets its own
 * x-internal-token (internal-auth.int.test.ts tests the token itself on `createInternalApp` directly). A Proxy, so
 * the app's own properties (its router, for listExpressRoutes; listen) stay as they are.
 */
export function withInternalToken(app: Express, token: string | undefined): Express {
  if (!token) return app;
  return new Proxy(app, {
    apply(target, thisArg, args: unknown[]) {
      const req = args[0] as http.IncomingMessage;
      req.headers["x-internal-token"] ??= token;
      return Reflect.apply(target, thisArg, args) as unknown;
    },
  });
}

export type TestProject = AnyTestProject<ProjectId>;

/** A project with its keys and one verified sender address. */
export async function makeProject(deps: Deps, opts: { verifiedSender?: boolean } = {}): Promise<TestProject> {
  return projectFactory({
    db: deps.db,
    createProject,
    addVerifiedSender: (db, projectId, email) =>
      db.prisma.senderProfile.create({
        data: { projectId, senderEmail: email, senderName: "Shop", emailVerified: true, active: true },
      }),
    encryptionKey: ENCRYPTION_KEY,
  })(opts);
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
      // both lanes: marketing batches, and a project's sends past its fair share, travel in the bulk lane
      bindings: [
        { exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailSendRequested },
        { exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailBulkSendRequested },
      ],
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

export { waitFor };

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
