/**
 * The client's webhook receiver for the chaos run: four paths (outbound and inbound, live and test), each set as
 * the demo project's URL of that kind and mode, every request kept with whether its X-SVC-Signature verifies with
 * the key of that mode (spec 6.2: HMAC-SHA256 of the raw body keyed with the project's API key).
 */
import { createHash, createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: "/live" | "/test" | "/inbound-live" | "/inbound-test";
  sha: string;
  signatureOk: boolean;
  isTest: boolean | null;
  projectId: string | null;
  event: string | null;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): void;
}

export async function startReceiver(
  keys: { live: string; test: string },
  projectId: string,
): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const p = (req.url ?? "").split("?")[0] as Received["path"];
      const key = p.endsWith("test") ? keys.test : keys.live;
      const expected = `sha256=${createHmac("sha256", key).update(raw).digest("hex")}`;
      let body: { is_test?: boolean; project_id?: string; event?: string; data?: { project_id?: string } } =
        {};
      try {
        body = JSON.parse(raw.toString("utf8")) as typeof body;
      } catch {
        /* kept as not JSON */
      }
      received.push({
        path: p,
        sha: createHash("sha256").update(raw).digest("hex"),
        signatureOk: req.headers["x-svc-signature"] === expected,
        isTest: typeof body.is_test === "boolean" ? body.is_test : null,
        projectId: body.project_id ?? body.data?.project_id ?? null,
        event: body.event ?? null,
      });
      void projectId;
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => server.close(),
  };
}
