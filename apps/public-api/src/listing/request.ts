import type { Request, Response } from "express";
import { AppError, ErrorCode } from "@emailsvc/http";
import type { Total } from "./pagination";

/** A JSON object body, or a 400 that says so (an array or a bare value is no request of these routes). */
export function objectBody(req: Request): Record<string, unknown> {
  return objectBodyOf(req.body);
}

export function objectBodyOf(b: unknown): Record<string, unknown> {
  if (typeof b !== "object" || b === null || Array.isArray(b))
    throw new AppError(ErrorCode.VALIDATION, "Request body must be a JSON object");
  return b as Record<string, unknown>;
}

/** A listing's total is estimated past 10,000 rows; this header says when (see pagination.ts). */
export function totalHeader(res: Response, total: Total): void {
  res.setHeader("X-Total-Count-Exact", String(total.exact));
}
