// A local node:http server that answers from a script, one step per request, and records what it received. The
// SDK's unit tests run against it over real sockets (no fetch mock), so retries, headers and dropped connections
// behave as they do against the service.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** One answer: a status with a JSON body and headers, or `drop` (close the socket without answering). */
export type Step =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { drop: true }
  | { hang: true }
  | ((req: Received) => { status: number; body?: unknown; headers?: Record<string, string> });

export interface FakeServer {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; the last one repeats. */
  script(...steps: Step[]): void;
  close(): Promise<void>;
}

export async function startFakeServer(): Promise<FakeServer> {
  const received: Received[] = [];
  let steps: Step[] = [{ status: 200, body: {} }];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(r);
      const step = steps[Math.min(next++, steps.length - 1)]!;
      if ("drop" in step) {
        req.socket.destroy();
        return;
      }
      if ("hang" in step) return; // never answers (closed by close())
      const answer = typeof step === "function" ? step(r) : step;
      const text = answer.body === undefined ? "" : JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        ...(text ? { "content-type": "application/json" } : {}),
        ...answer.headers,
      });
      res.end(text);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script(...s) {
      steps = s;
      next = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const accepted = {
  message: "Email queued",
  email_id: "7f0c1a52-3f5e-4c1b-9d8e-2a0b6c1d2e3f",
  project_id: "0e7d0f43-8a55-4c40-9b2a-8f2f2c6c1a11",
};
