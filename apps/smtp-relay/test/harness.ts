/**
 * The real stack around smtp-relay, on this package's own PostgreSQL database and RabbitMQ vhost: s3rver
 * in-process, a self-signed certificate made with openssl for this run, the relay in-process (or as a child
 * process, to be SIGKILLed), and an observer queue bound to the send commands, which sees what the outbox relay
 * published. Nothing is faked; no send-worker runs, so the commands stay where the observer reads them.
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import nodemailer from "nodemailer";
import { Exchanges, messagingTopology, RoutingKeys, type Envelope, type Topology } from "@emailsvc/contracts";
import { createDb, createProject, type Db } from "@emailsvc/db";
import { type Broker, createBroker } from "@emailsvc/messaging";
import {
  freePort,
  projectFactory,
  spawnTs,
  startS3,
  stopEvery,
  type TestProject,
  type TestS3,
  waitFor,
} from "@emailsvc/testing";
import { createApp } from "../src/app";
import { createDeps } from "../src/deps";
import { readEnv } from "../src/env";
import { createSmtpRelay } from "../src/smtp/smtp-relay";

export { waitFor };
export const ENCRYPTION_KEY = "ef".repeat(32);
const root = path.resolve(__dirname, "../../..");
const logDir = path.join(root, ".local", `test-smtp-relay-${process.env.TEST_RUN_ID ?? "run"}`);

/** A self-signed certificate for 127.0.0.1 and localhost, valid one day, made offline with openssl. */
export function makeCertificate(): { certFile: string; keyFile: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smtp-relay-tls-"));
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
      ...["-keyout", keyFile, "-out", certFile, "-subj", "/CN=localhost"],
      ...["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    ],
    { stdio: "ignore" },
  );
  return { certFile, keyFile, cert: fs.readFileSync(certFile, "utf8") };
}

export const OBSERVER_QUEUE = "smtp-relay-test.send-requested";
const observerTopology: Topology = {
  exchanges: messagingTopology.exchanges,
  queues: [
    ...messagingTopology.queues,
    {
      name: OBSERVER_QUEUE,
      bindings: [
        { exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailSendRequested },
        { exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailBulkSendRequested },
      ],
      retry: null,
    },
  ],
};

export interface Relay {
  smtpPort: number;
  tlsPort: number;
  stop(signal?: NodeJS.Signals): Promise<void>;
  child?: ChildProcess;
}

export interface Stack {
  db: Db;
  s3: TestS3;
  env: Record<string, string>;
  cert: string;
  relay: Relay;
  /** Every activity id the outbox relay published in an email.send-requested command. */
  published: string[];
  startRelay(mode?: "in-process" | "child"): Promise<Relay>;
  makeProject(opts?: { verifiedSender?: boolean }): Promise<TestProject>;
  /** A nodemailer transport to the STARTTLS port (or the implicit-TLS one), authenticated with `key`. */
  transport(key: string, opts?: { implicitTls?: boolean; ignoreTLS?: boolean }): nodemailer.Transporter;
  close(): Promise<void>;
}

const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

export async function startStack(
  opts: { mode?: "in-process" | "child"; extraEnv?: Record<string, string> } = {},
): Promise<Stack> {
  const db = createDb(process.env.DATABASE_URL!, { max: 5 });
  const s3 = await startS3("attachments");
  const tls = makeCertificate();
  const [httpPort, smtpPort, tlsPort] = (await Promise.all([freePort(), freePort(), freePort()])) as [
    number,
    number,
    number,
  ];
  const env: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
    HOST: "127.0.0.1",
    PORT: String(httpPort),
    DATABASE_URL: process.env.DATABASE_URL!,
    RABBITMQ_URL: process.env.RABBITMQ_URL!,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    S3_ENDPOINT: s3.endpoint,
    ATTACHMENTS_BUCKET: s3.bucket,
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: String(smtpPort),
    SMTP_TLS_PORT: String(tlsPort),
    SMTP_TLS_CERT: tls.certFile,
    SMTP_TLS_KEY: tls.keyFile,
    ...opts.extraEnv,
  };

  const observer: Broker = createBroker({
    url: process.env.RABBITMQ_URL!,
    name: "smtp-relay-test-observer",
    topology: observerTopology,
    reconnectSeconds: 0.3,
  });
  await observer.ready();
  const published: string[] = [];
  await observer.consumeRaw<{ activityIds: string[] }>(
    OBSERVER_QUEUE,
    (e: Envelope<{ activityIds: string[] }>) => void published.push(...e.payload.activityIds),
    { prefetch: 50 },
  );

  const startRelay = async (mode: "in-process" | "child" = "in-process"): Promise<Relay> => {
    if (mode === "child") {
      fs.mkdirSync(logDir, { recursive: true });
      const out = fs.openSync(path.join(logDir, "smtp-relay.log"), "a");
      const proc = spawnTs("apps/smtp-relay/src/main.ts", {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ["ignore", out, out],
      });
      const exited = new Promise<void>((r) => proc.once("exit", () => r()));
      await waitFor(
        async () => {
          if (proc.exitCode !== null) throw new Error(`smtp-relay exited; see ${logDir}/smtp-relay.log`);
          return reachable(smtpPort);
        },
        60_000,
        "smtp-relay to listen",
        100,
      );
      return {
        smtpPort,
        tlsPort,
        child: proc,
        async stop(signal = "SIGTERM") {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
          const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
          await exited;
          clearTimeout(timer);
        },
      };
    }
    const deps = await createDeps(readEnv(env));
    await deps.broker.ready();
    const server = http.createServer(createApp(deps));
    await new Promise<void>((r) => server.listen(httpPort, "127.0.0.1", r));
    const relay = createSmtpRelay(deps, { graceMs: 1_000 });
    await relay.listen();
    return {
      smtpPort,
      tlsPort,
      stop: () =>
        stopEvery([
          () => relay.close(),
          () => {
            server.closeAllConnections();
            return new Promise((r) => server.close(r));
          },
          () => deps.outbox.stop(),
          () => deps.broker.close(),
          () => deps.db.close(),
          () => deps.s3.destroy(),
        ]),
    };
  };

  let relay: Relay;
  try {
    relay = await startRelay(opts.mode ?? "in-process");
  } catch (err) {
    await stopEvery([() => observer.close(), () => s3.close(), () => db.close()]);
    throw err;
  }
  const stack: Stack = {
    db,
    s3,
    env,
    cert: tls.cert,
    relay,
    published,
    startRelay: async (mode) => (stack.relay = await startRelay(mode)),
    makeProject: (o) =>
      projectFactory({
        db,
        createProject,
        addVerifiedSender: (d: Db, projectId, email) =>
          d.prisma.senderProfile.create({
            data: { projectId, senderEmail: email, senderName: "Shop", emailVerified: true, active: true },
          }),
        encryptionKey: ENCRYPTION_KEY,
      })(o),
    transport: (key, t = {}) =>
      nodemailer.createTransport({
        host: "127.0.0.1",
        port: t.implicitTls ? tlsPort : smtpPort,
        secure: Boolean(t.implicitTls),
        requireTLS: !t.implicitTls && !t.ignoreTLS,
        ignoreTLS: Boolean(t.ignoreTLS),
        auth: { user: "apikey", pass: key },
        tls: { ca: [tls.cert] },
      }),
    async close() {
      await stopEvery([() => stack.relay.stop(), () => observer.close(), () => s3.close(), () => db.close()]);
    },
  };
  return stack;
}

/** The activities (and their message's source and test flag) of a project's messages from its sender. */
export async function activitiesFrom(db: Db, project: { projectId: string; sender: string }) {
  const { rows } = await db.pool.query<{
    id: string;
    recipient: string;
    is_test: boolean;
    source: string;
    email_message_id: string;
    attachments: { storageKey: string; filename: string; size: number }[] | null;
  }>(
    `SELECT a.id, a.recipient, a.is_test, m.source, m.id AS email_message_id, m.attachments
       FROM activities a JOIN email_messages m ON m.id = a.email_message_id
      WHERE m.project_id = $1 AND m.from_email = $2 ORDER BY a.created_at, a.recipient`,
    [project.projectId, project.sender],
  );
  return rows;
}

/** A child process of the repo (`entry` under tsx, as `pnpm start` runs it), ready when `readyUrl` answers 2xx. */
export async function spawnChild(
  name: string,
  entry: string,
  env: Record<string, string>,
  readyUrl: string,
): Promise<{ stop(): Promise<void> }> {
  fs.mkdirSync(logDir, { recursive: true });
  const out = fs.openSync(path.join(logDir, `${name}.log`), "a");
  const proc = spawnTs(entry, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", out, out] });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`${name} exited; see ${logDir}/${name}.log`);
        return fetch(readyUrl).then(
          (r) => r.ok,
          () => false,
        );
      },
      150_000,
      `${name} to be ready`,
      200,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}

/**
 * A TCP proxy to `target` (PostgreSQL) that a test can take down and bring back on the same port: `down()` stops
 * listening and cuts every connection through it, as a database host that went away; `up()` listens again.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.once("close", () => sockets.delete(sock));
          sock.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const sock of sockets) sock.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = null;
    });
  await up();
  return { port, up, down };
}

/** A local webhook receiver answering 200; `hits` are the requests it got, path and parsed body. */
export async function startReceiver() {
  const hits: { path: string; body: { event?: string; data?: Record<string, unknown> } }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      let parsed = {};
      try {
        parsed = JSON.parse(body) as object;
      } catch {
        /* kept as {} */
      }
      hits.push({ path: req.url ?? "", body: parsed });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    hits,
    url: (p: string) => `${base}${p}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
