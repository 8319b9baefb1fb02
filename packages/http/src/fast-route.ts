import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseContentType } from "content-type";
import type { Logger, Metrics } from "@emailsvc/observability";
import { AppError, ErrorCode, errorBodyOf, httpStatusOf } from "./errors";
import { jsonBodyProblem } from "./json-body";

/** What a fast route's handler answers: a status, a JSON body and extra headers. */
export interface FastAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface FastRequest {
  req: IncomingMessage;
  requestId: string;
  /** Headers to send whatever the answer (e.g. rate-limit headers counted before a refusal). */
  headers: Record<string, string>;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The requests a fast route takes as Express would, byte for byte: a JSON body in UTF-8, not compressed. Anything
 * else (another charset, gzip, another type) is left to the Express route behind it, which answers it fully.
 */
export function isPlainJsonRequest(req: IncomingMessage): boolean {
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") return false;
  const type = req.headers["content-type"];
  if (type === undefined) return false;
  try {
    const parsed = parseContentType(type);
    const charset = parsed.parameters.charset?.toLowerCase();
    return parsed.type === "application/json" && (charset === undefined || charset === "utf-8");
  } catch {
    return false;
  }
}

/** The body's bytes, refused with a 413 past `limitBytes` (the rest of the upload is not read). */
export function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limitBytes)
      return reject(new AppError(ErrorCode.PAYLOAD_TOO_LARGE, "Request body too large"));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limitBytes) {
        req.removeAllListeners("data");
        reject(new AppError(ErrorCode.PAYLOAD_TOO_LARGE, "Request body too large"));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * The JSON body as `jsonBody()` gives it to Express routes: `{}` when empty, a 400 "Invalid JSON body" for what is
 * not a JSON object or array (body-parser's strict mode), and the checks of `jsonBodyProblem`.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const raw = (await readRawBody(req, limitBytes)).toString("utf8");
  if (raw.trim() === "") return {};
  const first = raw.trimStart()[0];
  let body: unknown;
  try {
    if (first !== "{" && first !== "[") throw new Error("strict");
    body = JSON.parse(raw);
  } catch {
    throw new AppError(ErrorCode.VALIDATION, "Invalid JSON body");
  }
  const problem = jsonBodyProblem(body);
  if (problem) throw new AppError(ErrorCode.VALIDATION, problem);
  return body;
}

function send(res: ServerResponse, a: FastAnswer, common: Record<string, string>): void {
  const json = JSON.stringify(a.body);
  res.writeHead(a.status, {
    ...common,
    ...a.headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(json)),
  });
  res.end(json);
}

/**
 * One route served on plain node:http ahead of Express, for endpoints hit thousands of times a second (custom
 * events): Express's per-request set-up, router walk and access-log line cost several times the work itself.
 * It keeps what every answer of the service carries (X-Request-Id, the spec's error body, the request-duration
 * metric) and logs every refusal and failure; a success is counted in the metric, not logged line by line.
 * `accepts` decides which requests it takes: every other one returns false and goes to Express.
 */
export function fastRoute(opts: {
  method: string;
  /** The exact path (a query string may follow); with `prefix`, every path under it (`/webhooks/shop/…`). */
  path: string;
  prefix?: boolean;
  logger: Logger;
  metrics?: Pick<Metrics, "httpDuration">;
  accepts?: (req: IncomingMessage) => boolean;
  handle: (r: FastRequest) => Promise<FastAnswer>;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const escaped = opts.path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const PATH = new RegExp(opts.prefix ? `^${escaped}` : `^${escaped}(?:\\?|$)`);
  return (req, res) => {
    if (req.method !== opts.method || !PATH.test(req.url ?? "")) return false;
    if (opts.accepts && !opts.accepts(req)) return false;
    const end = opts.metrics?.httpDuration.startTimer();
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const r: FastRequest = { req, requestId, headers: { "X-Request-Id": requestId } };
    const done = (a: FastAnswer) => {
      send(res, a, r.headers);
      end?.({ method: opts.method, route: opts.path, status: String(a.status) });
    };
    opts.handle(r).then(done, (err: unknown) => {
      const appErr =
        err instanceof AppError
          ? err
          : new AppError(ErrorCode.INTERNAL, "Internal server error", { cause: err });
      const status = httpStatusOf(appErr);
      const line = { requestId, method: opts.method, url: opts.path, status };
      if (status >= 500) opts.logger.error({ ...line, err: appErr.options.cause ?? appErr }, appErr.message);
      else opts.logger.warn(line, appErr.message);
      if (status === 413) r.headers.Connection = "close";
      if (res.headersSent) return res.destroy();
      done({ status, body: errorBodyOf(appErr) });
    });
    return true;
  };
}
