import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSesClient, type SnsMessage } from "@emailsvc/provider";
import { createLogger, type Logger } from "@emailsvc/observability";
import { createSimulator, type SimulatorOptions } from "../src";

export const silentLogger: Logger = createLogger({ service: "provider-simulator-test", level: "silent" });

export function startSimulator(opts: Partial<SimulatorOptions> = {}) {
  return createSimulator({ port: 0, logger: silentLogger, notificationRetryDelayMs: 50, ...opts });
}

export function sesFor(url: string, extra: { maxAttempts?: number; requestTimeoutMs?: number } = {}) {
  return createSesClient({
    region: "us-east-1",
    endpoint: url,
    accessKeyId: "test",
    secretAccessKey: "test",
    maxAttempts: 1,
    ...extra,
  });
}

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: SnsMessage;
}

/** A stand-in for notification-ingest / inbound-mail: records every POST; can answer 503 to test retries. */
export async function startReceiver() {
  const received: Received[] = [];
  let failNext = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (raw += c));
    req.on("end", () => {
      if (failNext > 0) {
        failNext--;
        return void res.writeHead(503).end();
      }
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) as SnsMessage });
      res.writeHead(200).end();
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sns`,
    received,
    failNextRequests(n: number) {
      failNext = n;
    },
    waitFor(n: number, timeoutMs = 10_000) {
      if (received.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`only ${received.length}/${n} notifications arrived`)),
          timeoutMs,
        );
        waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
      });
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The SES event inside an SNS notification body. */
export const eventOf = (r: Received) => JSON.parse(r.body.Message) as Record<string, any>;
