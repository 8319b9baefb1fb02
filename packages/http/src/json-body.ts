import { parse as parseContentType } from "content-type";
import express, { type RequestHandler } from "express";
import { AppError, ErrorCode } from "./errors";
import { parseJsonInSlices } from "./json-slices";

const NUL_MESSAGE = "Request body must not contain NUL characters (\\u0000)";
const SURROGATE_MESSAGE =
  "Request body must be valid Unicode: a \\uD800-\\uDFFF escape is not part of a pair";

export const MSG_JSON_ONLY = "Content-Type must be application/json";

export function isJsonType(header: string | undefined): boolean {
  try {
    return header !== undefined && parseContentType(header).type === "application/json";
  } catch {
    return false;
  }
}

/** A body is on its way (Node's own test: chunked, or a non-zero length). */
const carriesBody = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers["transfer-encoding"] !== undefined || (headers["content-length"] ?? "0") !== "0";

/** No unpaired UTF-16 surrogate (JSON can write one as an escape; PostgreSQL's text and jsonb refuse it). */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Levels of arrays and objects a request body may nest: far beyond any real body, well inside the stack. */
export const MAX_JSON_DEPTH = 64;

/** `BodyWalk.step`'s answer while values are left to visit. */
const MORE = Symbol("more");

/**
 * The walk of `jsonBodyProblem`, resumable: `step(n)` visits up to n more values and answers the first problem,
 * null when the body is fine, or MORE.
 */
function bodyWalk(body: unknown): { step(limit: number): string | null | typeof MORE } {
  // Two parallel stacks and for…in: a 12,500-recipient batch body is walked in a few milliseconds.
  const values: unknown[] = [body];
  const depths: number[] = [0];
  return {
    step(limit) {
      for (let visited = 0; values.length; visited++) {
        if (visited >= limit) return MORE;
        const value = values.pop();
        const depth = depths.pop()!;
        if (typeof value === "string") {
          if (value.indexOf("\0") !== -1) return NUL_MESSAGE;
          if (!wellFormed(value)) return SURROGATE_MESSAGE;
        } else if (typeof value === "object" && value !== null) {
          if (depth >= MAX_JSON_DEPTH) return `Request body nests deeper than ${MAX_JSON_DEPTH} levels`;
          if (Array.isArray(value)) {
            for (let i = 0; i < value.length; i++) {
              values.push(value[i]);
              depths.push(depth + 1);
            }
          } else {
            for (const key in value) {
              if (key.indexOf("\0") !== -1) return NUL_MESSAGE;
              if (!wellFormed(key)) return SURROGATE_MESSAGE;
              values.push((value as Record<string, unknown>)[key]);
              depths.push(depth + 1);
            }
          }
        }
      }
      return null;
    },
  };
}

/**
 * The first problem of a parsed JSON body that no handler can store or walk safely, or null: a NUL character
 * or an unpaired surrogate (PostgreSQL text and jsonb cannot hold them; the insert failed with a 500), or nesting
 * deeper than MAX_JSON_DEPTH (recursive code such as an idempotency fingerprint ran out of stack). Iterative, so
 * any depth is safe here.
 */
export function jsonBodyProblem(body: unknown): string | null {
  return bodyWalk(body).step(Infinity) as string | null;
}

/** Values `jsonBodyProblemInSlices` visits per event-loop turn: about a millisecond's work. */
export const WALK_SLICE = 10_000;

/**
 * `jsonBodyProblem`, WALK_SLICE values per event-loop turn, so that a large body (a 12,500-recipient batch holds
 * 60,000 values and more) does not hold the event loop in the same piece as its JSON.parse. A body that fits in
 * one slice is answered in the same turn.
 */
export function jsonBodyProblemInSlices(body: unknown, done: (problem: string | null) => void): void {
  const walk = bodyWalk(body);
  const go = () => {
    const r = walk.step(WALK_SLICE);
    if (r === MORE) setImmediate(go);
    else done(r);
  };
  go();
}

/**
 * `express.json` plus the checks of `jsonBodyProblem` (a 400 with its message), for every route that takes a
 * JSON body: every input a client can send gets a defined answer, never a 500. A body that is not JSON is a 400
 * (the internal send endpoint answers 415 first, spec 4.4, through `requireJson`).
 */
export function jsonBody(opts: {
  limit: string;
  /**
   * For routes whose bodies run to megabytes (a 12,500-recipient batch): the text is parsed in slices
   * (`parseJsonInSlices`), so other requests are answered between them. Same answers as `express.json`.
   */
  sliced?: boolean;
}): RequestHandler[] {
  return [
    // A body of any other type was skipped by the parser and answered as if its fields were missing.
    (req, _res, next) =>
      next(
        carriesBody(req.headers) && !isJsonType(req.headers["content-type"])
          ? new AppError(ErrorCode.VALIDATION, MSG_JSON_ONLY)
          : undefined,
      ),
    ...(opts.sliced ? slicedJsonParser(opts.limit) : [express.json({ limit: opts.limit })]),
    (req, _res, next) =>
      jsonBodyProblemInSlices(req.body, (problem) =>
        next(problem ? new AppError(ErrorCode.VALIDATION, problem) : undefined),
      ),
  ];
}

/**
 * `express.json({ limit })` in slices: the body read and decoded by body-parser (limit, gzip and deflate, the same
 * errors), then parsed by `parseJsonInSlices` with express.json's rules: an empty body is `{}`, strict mode (an
 * object or an array only, whitespace-only refused), and a charset other than UTF-8 refused with a 415.
 */
function slicedJsonParser(limit: string): RequestHandler[] {
  return [
    (req, _res, next) => {
      if (!carriesBody(req.headers)) return next();
      const type = req.headers["content-type"];
      let charset: string | undefined;
      try {
        charset = type ? parseContentType(type).parameters.charset?.toLowerCase() : undefined;
      } catch {
        charset = undefined;
      }
      next(
        charset !== undefined && !charset.startsWith("utf-")
          ? new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Unsupported request encoding")
          : undefined,
      );
    },
    express.text({ type: (req) => isJsonType(req.headers["content-type"]), limit, defaultCharset: "utf-8" }),
    (req, _res, next) => {
      const text: unknown = req.body;
      if (typeof text !== "string") return next();
      if (text.length === 0) {
        req.body = {};
        return next();
      }
      // body-parser's strict rule: the first character past JSON whitespace (space, tab, LF, CR)
      const isJsonSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";
      let at = 0;
      while (at < text.length && isJsonSpace(text[at]!)) at++;
      const first = text[at];
      if (first !== "{" && first !== "[")
        return next(new AppError(ErrorCode.VALIDATION, "Invalid JSON body"));
      parseJsonInSlices(text).then(
        (body) => {
          req.body = body;
          next();
        },
        () => next(new AppError(ErrorCode.VALIDATION, "Invalid JSON body")),
      );
    },
  ];
}

/**
 * The first query parameter no handler can store or compare in PostgreSQL text, as a 400 message, or null: a NUL
 * (`?tag=%00` reached a lead filter and failed with a 500) or an unpaired surrogate, in a name or a value.
 */
export function queryProblem(query: Record<string, unknown>): string | null {
  for (const name in query) {
    const value = query[name];
    for (const v of Array.isArray(value) ? value : [value]) {
      const texts = typeof v === "string" ? [name, v] : [name];
      if (texts.some((t) => t.indexOf("\0") !== -1))
        return `Query parameter ${JSON.stringify(name)} must not contain NUL characters (\\u0000)`;
      if (!texts.every(wellFormed)) return `Query parameter ${JSON.stringify(name)} must be valid Unicode`;
    }
  }
  return null;
}
