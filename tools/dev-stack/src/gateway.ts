import { randomUUID } from "node:crypto";
import http from "node:http";
import httpProxy from "http-proxy";
import { routeFor, SERVICES, type ServiceSpec } from "./services";

/**
 * Headers Node keeps only once however often they come (its http docs); every other repeated header it joins
 * with ", ", which would turn two `Idempotency-Key` headers (a 400 at the service) into one key "X, Y".
 */
const SINGLE = new Set([
  "age",
  "authorization",
  "content-length",
  "content-type",
  "etag",
  "expires",
  "from",
  "host",
  "if-modified-since",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "proxy-authorization",
  "referer",
  "retry-after",
  "server",
  "user-agent",
  "cookie",
  "set-cookie",
]);

/** Repeated request headers passed on as they came, one line each, as nginx does. */
function keepRepeatedHeaders(req: http.IncomingMessage): void {
  const seen = new Map<string, string[]>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (SINGLE.has(name)) continue;
    seen.set(name, [...(seen.get(name) ?? []), req.rawHeaders[i + 1]!]);
  }
  for (const [name, values] of seen) if (values.length > 1) req.headers[name] = values;
}

/** What the services accept as a caller's `X-Request-Id` (packages/http); anything else is replaced. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The local stand-in for the nginx gateway (no nginx on a bare dev machine): routes only the public path
 * prefixes; internal routes (/send-email, /trigger-*, /admin) are never reachable through it.
 */
export function startGateway(
  port: number,
  services: ServiceSpec[] = SERVICES,
  host = "127.0.0.1",
): Promise<http.Server> {
  // Without an agent, http-proxy sends `Connection: close` upstream: every request opened a new TCP connection to
  // the service (a connect, an accept and a close per request), which halved acceptance through the gateway.
  // Idle sockets are dropped a second before the service's own keep-alive timeout (Node's agent reads the
  // service's `Keep-Alive: timeout=` hint), so a reused socket is not one the service is closing.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: "lifo" });
  const proxy = httpProxy.createProxyServer({ xfwd: true, agent });
  // `Connection` is hop-by-hop: a caller's `Connection: close` ends the caller's connection, not the pooled one.
  proxy.on("proxyReq", (proxyReq) => proxyReq.removeHeader("connection"));
  proxy.on("error", (_err, _req, res) => {
    if (res instanceof http.ServerResponse && !res.headersSent) {
      res.writeHead(502, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ success: false, error: "Upstream unavailable" }));
    }
  });
  const server = http.createServer((req, res) => {
    // One id per request, passed to the service and on every answer, the gateway's own 404 and 502 included.
    keepRepeatedHeaders(req);
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.headers["x-request-id"] = requestId;
    res.setHeader("X-Request-Id", requestId);
    const path = req.url ?? "/";
    if (path === "/healthz") {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"status":"ok"}');
      return;
    }
    const svc = routeFor(path, services);
    if (!svc) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ success: false, error: "Not found" }));
      return;
    }
    proxy.web(req, res, { target: `http://127.0.0.1:${svc.port}` });
  });
  server.on("close", () => agent.destroy());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
