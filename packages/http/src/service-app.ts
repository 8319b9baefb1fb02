import { randomUUID } from "node:crypto";
import express, { type Express, type RequestHandler } from "express";
import { pinoHttp } from "pino-http";
import { type Logger, type Metrics, runWithContext } from "@emailsvc/observability";
import { AppError, ErrorCode } from "./errors";
import { queryProblem } from "./json-body";

export interface ReadinessCheck {
  name: string;
  check: () => Promise<boolean> | boolean;
}

export interface ServiceAppOptions {
  logger: Logger;
  metrics: Metrics;
  /** /readyz is 200 only when every check passes (DB ping, broker topology declared, ...). */
  readiness?: ReadinessCheck[];
  /** Set false while shutting down so load balancers stop sending traffic before the server closes. */
  isAcceptingTraffic?: () => boolean;
  /** Routes mounted before request logging and metrics: hot paths (tracking pixel, click redirect). */
  early?: (app: Express) => void;
}

/**
 * The URL as the access log writes it: a `sig` query value left out, since it is a capability (an unsubscribe
 * link's signature acts for its recipient), and logs are read by more people than the recipient.
 */
export function loggedUrl(url: string | undefined): string | undefined {
  const q = url?.indexOf("?") ?? -1;
  if (!url || q < 0) return url;
  // decoded as the query parser decodes it: `?%73ig=` is a `sig` too
  const params = new URLSearchParams(url.slice(q + 1));
  if (!params.has("sig")) return url;
  const logged = new URLSearchParams();
  for (const [k, v] of params) logged.append(k, k === "sig" ? "redacted" : v);
  return `${url.slice(0, q + 1)}${logged.toString()}`;
}

/** Request id from `X-Request-Id` (gateway) or a new one; echoed back and present in every log line. */
const requestContext: RequestHandler = (req, res, next) => {
  const incoming = req.header("x-request-id");
  const requestId = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  res.setHeader("X-Request-Id", requestId);
  (req as { id?: string }).id = requestId;
  runWithContext({ requestId }, next);
};

/**
 * Express app with what every service shares: request ids, JSON access logs, metrics, and the
 * /healthz, /readyz, /metrics endpoints. Routes and the error middleware are added by the caller
 * (`finishApp`) so each service keeps its own route table.
 */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", true);
  app.set("query parser", "simple");

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    const results: Record<string, boolean> = {};
    for (const c of opts.readiness ?? []) {
      try {
        results[c.name] = await c.check();
      } catch {
        results[c.name] = false;
      }
    }
    const accepting = opts.isAcceptingTraffic ? opts.isAcceptingTraffic() : true;
    const ok = accepting && Object.values(results).every(Boolean);
    res.status(ok ? 200 : 503).json({ status: ok ? "ready" : "not_ready", accepting, checks: results });
  });
  app.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", opts.metrics.registry.contentType);
    res.send(await opts.metrics.registry.metrics());
  });

  opts.early?.(app);
  app.use(requestContext);
  app.use(
    pinoHttp({
      logger: opts.logger,
      genReqId: (req) => (req as { id?: string }).id ?? randomUUID(),
      autoLogging: {
        ignore: (req) => req.url === "/healthz" || req.url === "/readyz" || req.url === "/metrics",
      },
      // Access-log lines carry what identifies the request, never its headers (keys, cookies): nothing to
      // redact, and no header copy per request.
      serializers: {
        req: (req: { id?: unknown; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          url: loggedUrl(req.url),
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "warn" : "info",
    }),
  );
  app.use((req, res, next) => {
    const end = opts.metrics.httpDuration.startTimer();
    res.on("finish", () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      end({ method: req.method, route: `${req.baseUrl}${route}`, status: String(res.statusCode) });
    });
    next();
  });
  // Every route's query values reach handlers (and PostgreSQL) as text: one that cannot be is a 400 here.
  app.use((req, _res, next) => {
    const problem = req.url.includes("?") ? queryProblem(req.query as Record<string, unknown>) : null;
    next(problem ? new AppError(ErrorCode.VALIDATION, problem) : undefined);
  });
  return app;
}
