import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "@emailsvc/observability";
import { AppError, ErrorCode, errorBodyOf, httpStatusOf } from "./errors";
import { isJsonType, MSG_JSON_ONLY } from "./json-body";

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Maps any error to the spec's body shape `{ success: false, error }`; never leaks internals on 500. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let appErr: AppError;
    if (err instanceof AppError) {
      appErr = err;
    } else {
      const bp = err as BodyParserError;
      if (bp?.type === "entity.too.large")
        appErr = new AppError(ErrorCode.PAYLOAD_TOO_LARGE, "Request body too large");
      else if (bp?.type === "entity.parse.failed")
        appErr = new AppError(ErrorCode.VALIDATION, "Invalid JSON body");
      else if (bp?.type === "encoding.unsupported" || bp?.type === "charset.unsupported")
        appErr = new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Unsupported request encoding");
      else if (typeof bp?.status === "number" && bp.status >= 400 && bp.status < 500)
        appErr = new AppError(ErrorCode.VALIDATION, "Invalid request");
      else appErr = new AppError(ErrorCode.INTERNAL, "Internal server error", { cause: err });
    }
    const status = httpStatusOf(appErr);
    const log = status >= 500 ? logger.error.bind(logger) : logger.debug.bind(logger);
    log(
      {
        err: status >= 500 ? (appErr.options.cause ?? appErr) : undefined,
        path: req.path,
        status,
      },
      appErr.message,
    );
    if (res.headersSent) return;
    res.status(status).json(errorBodyOf(appErr));
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new AppError(ErrorCode.NOT_FOUND, "Not found"));
};

/**
 * Mounted with `router.all(path, …)` after a path's routes: another method gets 405 with `Allow` (it was a 404
 * while OPTIONS answered Express's plain-text `Allow`); OPTIONS gets 204 with `Allow`.
 */
export function methodNotAllowed(...allowed: string[]): RequestHandler {
  const allow = allowed.join(", ");
  return (req, res, next) => {
    res.setHeader("Allow", allow);
    if (req.method === "OPTIONS") {
      res.status(204).end();
      return;
    }
    next(new AppError(ErrorCode.METHOD_NOT_ALLOWED, "Method not allowed"));
  };
}

/**
 * 415 for anything but JSON (spec 4.4: the internal send endpoint). Read from the header itself: `req.is()`
 * answers null for a request without a body, which turned a JSON request with no body into a 415.
 */
export const requireJson: RequestHandler = (req, _res, next) => {
  if (!isJsonType(req.headers["content-type"])) {
    return next(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, MSG_JSON_ONLY));
  }
  next();
};
