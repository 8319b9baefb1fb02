import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { publicRoutes } from "@emailsvc/contracts";
import { startGateway } from "../src/gateway";
import { routeFor, SERVICES } from "../src/services";

const conf = fs.readFileSync(path.resolve(__dirname, "../../../infra/gateway/nginx.conf"), "utf8");

describe("nginx gateway (infra/gateway/nginx.conf)", () => {
  const locations = [...conf.matchAll(/location\s+(=\s+)?(\S+)\s*\{([^}]*)\}/g)].map((m) => ({
    exact: Boolean(m[1]),
    path: m[2]!,
    upstream: /proxy_pass http:\/\/(\w+)/.exec(m[3]!)?.[1],
  }));

  it("proxies exactly the public prefixes of the service table to the right service", () => {
    const proxied = locations
      .filter((l) => l.upstream)
      .map((l) => `${l.path} ${l.upstream!.replace(/_/g, "-")}`)
      .sort();
    const expected = SERVICES.flatMap((s) => s.publicPrefixes.map((p) => `${p} ${s.name}`)).sort();
    expect(proxied).toEqual(expected);
  });

  it.each(["/send-email", "/trigger-campaign", "/trigger-job", "/admin/projects"])(
    "never routes the internal path %s",
    (p) => {
      const match = locations.filter((l) => l.upstream && !l.exact && p.startsWith(l.path));
      expect(match).toEqual([]);
      expect(routeFor(p)).toBeUndefined(); // the local Node gateway agrees
    },
  );

  it("keeps connections to every upstream alive (HTTP/1.1, no Connection header passed on, a keepalive pool)", () => {
    expect(conf).toMatch(/^\s*proxy_http_version 1\.1;/m);
    expect(conf).toMatch(/^\s*proxy_set_header Connection "";/m);
    const upstreams = [...conf.matchAll(/upstream\s+(\w+)\s*\{([^}]*)\}/g)];
    expect(upstreams.map((u) => u[1]).sort()).toEqual(
      [...new Set(locations.filter((l) => l.upstream).map((l) => l.upstream!))].sort(),
    );
    for (const [, name, body] of upstreams)
      expect(`${name}: ${/keepalive (\d+);/.exec(body!)?.[1]}`).toMatch(/: \d+$/);
  });

  it("answers anything else with 404", () => {
    expect(conf).toMatch(/location \/ \{[^}]*return 404/);
  });
});

describe("local gateway (src/gateway.ts)", () => {
  let upstream: http.Server;
  let gateway: http.Server;
  let base: string;
  const seen: (string | undefined)[] = [];
  const raw: string[][] = [];
  let accepted = 0;
  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      seen.push(req.headers["x-request-id"] as string | undefined);
      raw.push(req.rawHeaders);
      res.setHeader("X-Request-Id", String(req.headers["x-request-id"]));
      res.end("{}");
    });
    upstream.on("connection", () => accepted++);
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    const up = (upstream.address() as AddressInfo).port;
    // a port nothing listens on, for the 502
    const spare = http.createServer();
    await new Promise<void>((r) => spare.listen(0, "127.0.0.1", r));
    const dead = (spare.address() as AddressInfo).port;
    await new Promise((r) => spare.close(r));
    gateway = await startGateway(0, [
      { name: "public-api", port: up, publicPrefixes: ["/v1/"] },
      { name: "domain-service", port: dead, publicPrefixes: ["/domains"] },
    ]);
    base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => gateway.close(r));
    await new Promise((r) => upstream.close(r));
  });

  it("gives every answer an X-Request-Id, its own 404 and 502 too, and passes it to the service", async () => {
    const proxied = await fetch(`${base}/v1/send-email`);
    const id = proxied.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.at(-1)).toBe(id);
    const own = await fetch(`${base}/v1/send-email`, { headers: { "X-Request-Id": "trace-42" } });
    expect([own.headers.get("x-request-id"), seen.at(-1)]).toEqual(["trace-42", "trace-42"]);
    const bad = await fetch(`${base}/v1/x`, { headers: { "X-Request-Id": "a b" } });
    expect(bad.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    const notFound = await fetch(`${base}/nothing`);
    expect([notFound.status, notFound.headers.get("x-request-id")]).toEqual([404, expect.any(String)]);
    const down = await fetch(`${base}/domains`, { headers: { "X-Request-Id": "trace-43" } });
    expect([down.status, down.headers.get("x-request-id")]).toEqual([502, "trace-43"]);
  });

  it("reuses its connections to the service: 50 sequential requests, then 5 waves of 10, open at most 10 sockets", async () => {
    const before = accepted;
    const count = seen.length;
    // a caller's `Connection: close` closes the caller's connection only
    const get = (close: boolean) =>
      new Promise<number>((resolve, reject) => {
        const agent = new http.Agent({ keepAlive: false });
        http
          .get(`${base}/v1/x`, { agent, headers: close ? { Connection: "close" } : {} }, (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode!));
          })
          .on("error", reject);
      });
    for (let i = 0; i < 50; i++) expect(await get(i % 2 === 0)).toBe(200);
    expect(accepted - before).toBeLessThanOrEqual(1);
    for (let wave = 0; wave < 5; wave++) {
      expect(await Promise.all(Array.from({ length: 10 }, () => get(false)))).toEqual(Array(10).fill(200));
    }
    expect(seen.length - count).toBe(100);
    expect(accepted - before).toBeLessThanOrEqual(10);
  });

  it("passes a repeated header on as separate lines (two Idempotency-Keys stay two, for the service's 400)", async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${base}/v1/send-email`, { method: "POST" }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.setHeader("Idempotency-Key", ["X", "Y"]);
      req.end("{}");
    });
    const last = raw.at(-1)!;
    const keys = last.filter((_v, i) => i % 2 === 1 && last[i - 1]!.toLowerCase() === "idempotency-key");
    expect(keys).toEqual(["X", "Y"]);
  });
});

describe("the public OpenAPI document and the gateway", () => {
  it("routes every documented path to the service the document names", () => {
    for (const r of publicRoutes) {
      const sample = r.path.replace(/\{\w+\}/g, "x1");
      expect(`${r.method} ${r.path} → ${routeFor(sample)?.name}`).toBe(
        `${r.method} ${r.path} → ${r.service}`,
      );
    }
  });
});
