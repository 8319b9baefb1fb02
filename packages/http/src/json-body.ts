import express, { type RequestHandler } from "express";
import { AppError, ErrorCode } from "./errors";

/** Levels of arrays and objects a request body may nest: far beyond any real body, well inside the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * The first problem of a parsed JSON body that no handler can store or walk safely, or null: a NUL character
 * (PostgreSQL text cannot hold one; it failed the insert with a 500) or nesting deeper than MAX_JSON_DEPTH
 * (recursive code such as an idempotency fingerprint ran out of stack). Iterative, so any depth is safe here.
 */
export function jsonBodyProblem(body: unknown): string | null {
  const stack: { value: unknown; depth: number }[] = [{ value: body, depth: 0 }];
  while (stack.length) {
    const { value, depth } = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes("\0")) return "Request body must not contain NUL characters (\\u0000)";
    } else if (value !== null && typeof value === "object") {
      if (depth >= MAX_JSON_DEPTH) return `Request body nests deeper than ${MAX_JSON_DEPTH} levels`;
      if (Array.isArray(value)) {
        for (const item of value) stack.push({ value: item, depth: depth + 1 });
      } else {
        for (const [key, item] of Object.entries(value)) {
          if (key.includes("\0")) return "Request body must not contain NUL characters (\\u0000)";
          stack.push({ value: item, depth: depth + 1 });
        }
      }
    }
  }
  return null;
}

/**
 * `express.json` plus the checks of `jsonBodyProblem` (a 400 with its message), for every route that takes a
 * JSON body: every input a client can send gets a defined answer, never a 500.
 */
export function jsonBody(opts: { limit: string }): RequestHandler[] {
  return [
    express.json({ limit: opts.limit }),
    (req, _res, next) => {
      const problem = jsonBodyProblem(req.body);
      next(problem ? new AppError(ErrorCode.VALIDATION, problem) : undefined);
    },
  ];
}
