import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express, { type Express } from "express";
import { createLogger, type Logger } from "@emailsvc/observability";
import { readSnsTestFixtures } from "@emailsvc/provider";
import type { SimContext } from "./context";
import { controlRoutes } from "./control/control.routes";
import { createS3Target } from "./control/inbound-store";
import { Notifier } from "./notifications/notifier";
import { sesRoutes } from "./ses/ses.routes";
import { sesV1Routes } from "./ses/ses-v1.routes";
import { SimulatorState } from "./state/simulator-state";

/** Enough for every test and benchmark that reads messages back (a 12,500-recipient batch among them). */
export const DEFAULT_MAX_MESSAGES_KEPT = 20_000;

export interface SimulatorOptions {
  /** 0 = any free port (tests). */
  port: number;
  host?: string;
  /** Base URL receivers use to reach the simulator (for SigningCertURL); default `http://127.0.0.1:<port>`. */
  publicUrl?: string;
  /** Receives SES event notifications (Send/Delivery/Bounce/Complaint); none posted when unset. */
  notificationUrl?: string | null;
  /** Receives inbound "Received" notifications. */
  inboundNotificationUrl?: string | null;
  latencyMs?: number;
  /** SendEmail calls allowed in any 1-second window; unset/null = unlimited. */
  maxSendRate?: number | null;
  /** s3rver (or S3) where injected inbound MIME is stored; without it inbound uses SES's SNS action (MIME inline). */
  s3?: { endpoint: string; bucket: string; prefix?: string } | null;
  enforceVerifiedSenders?: boolean;
  /** The latest messages kept for the control API; default DEFAULT_MAX_MESSAGES_KEPT. */
  maxMessagesKept?: number;
  region?: string;
  accountId?: string;
  topicArn?: string;
  inboundTopicArn?: string;
  notificationRetries?: number;
  notificationRetryDelayMs?: number;
  notificationConcurrency?: number;
  notificationTimeoutMs?: number;
  /** Signing material; default the committed test fixture of @emailsvc/provider. */
  signing?: { privateKeyPem: string; certPem: string };
  logger?: Logger;
  logLevel?: string;
}

export interface Simulator {
  app: Express;
  state: SimulatorState;
  /** Listens; resolves with the base URL actually bound. */
  start(): Promise<string>;
  stop(): Promise<void>;
  /** The public base URL (valid after start()). */
  readonly url: string;
  /** Resolves once every queued notification was delivered or gave up. */
  flushNotifications(): Promise<void>;
}

export function createSimulator(opts: SimulatorOptions): Simulator {
  const region = opts.region ?? "us-east-1";
  const accountId = opts.accountId ?? "000000000000";
  const signing = opts.signing ?? readSnsTestFixtures();
  const logger =
    opts.logger ?? createLogger({ service: "provider-simulator", level: opts.logLevel ?? "info" });
  const state = new SimulatorState({
    latencyMs: opts.latencyMs ?? 0,
    maxSendRate: opts.maxSendRate ? opts.maxSendRate : null,
    notificationUrl: opts.notificationUrl ?? null,
    inboundNotificationUrl: opts.inboundNotificationUrl ?? null,
    enforceVerifiedSenders: opts.enforceVerifiedSenders ?? false,
    fault: null,
    maxMessagesKept: opts.maxMessagesKept ?? DEFAULT_MAX_MESSAGES_KEPT,
    max24HourSend: 1_000_000,
  });
  let publicUrl = opts.publicUrl?.replace(/\/+$/, "") ?? (opts.port ? `http://127.0.0.1:${opts.port}` : "");
  const inboundTopicArn = opts.inboundTopicArn ?? `arn:aws:sns:${region}:${accountId}:ses-inbound`;
  const topicArn = opts.topicArn ?? `arn:aws:sns:${region}:${accountId}:ses-notifications`;

  const notifier = new Notifier({
    state,
    logger,
    region,
    accountId,
    topicArn,
    inboundTopicArn,
    privateKeyPem: signing.privateKeyPem,
    publicUrl: () => publicUrl,
    retries: opts.notificationRetries ?? 4,
    retryDelayMs: opts.notificationRetryDelayMs ?? 200,
    concurrency: opts.notificationConcurrency ?? 16,
    timeoutMs: opts.notificationTimeoutMs ?? 5_000,
  });

  const ctx: SimContext = {
    state,
    notifier,
    logger,
    region,
    accountId,
    publicUrl: () => publicUrl,
    s3: opts.s3 ? createS3Target({ ...opts.s3, region }) : null,
    inboundTopicArn,
  };

  const app = express();
  app.disable("x-powered-by");
  app.use("/v2", sesRoutes(ctx));
  app.use(
    "/_sim",
    controlRoutes(ctx, signing.certPem, {
      privateKeyPem: signing.privateKeyPem,
      topicArn,
      timeoutMs: opts.notificationTimeoutMs ?? 5_000,
    }),
  );
  app.use(sesV1Routes(ctx));
  app.get("/", (_req, res) => {
    res.json({ service: "provider-simulator", ses: "/v2/email", control: "/_sim", cert: "/_sim/cert.pem" });
  });

  let server: Server | null = null;
  return {
    app,
    state,
    get url() {
      return publicUrl;
    },
    start() {
      return new Promise<string>((resolve, reject) => {
        const s = app.listen(opts.port, opts.host ?? "127.0.0.1", (err?: Error) => {
          if (err) return reject(err);
          const port = (s.address() as AddressInfo).port;
          if (!publicUrl) publicUrl = `http://127.0.0.1:${port}`;
          logger.info({ port, publicUrl }, "provider simulator listening");
          resolve(publicUrl);
        });
        // Benchmarks keep many SDK sockets alive; keep them longer than the SDK's idle timeout.
        s.keepAliveTimeout = 65_000;
        server = s;
      });
    },
    async stop() {
      notifier.stop();
      ctx.s3?.client.destroy();
      const s = server;
      server = null;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
    flushNotifications: () => notifier.flush(),
  };
}
