import { createHash, timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import { bearerToken } from "./auth";
import { AppError, ErrorCode } from "./errors";

export const INTERNAL_TOKEN_HEADER = "x-internal-token";
export const MSG_INTERNAL_TOKEN = "Unauthorized: invalid or missing internal token";

/** Both sides hashed first, so the comparison takes the same time whatever the lengths (no length oracle). */
const digest = (s: string) => createHash("sha256").update(s).digest();

/** True when `given` is the internal token, compared in constant time; never true without a configured token. */
export function isInternalToken(expected: string | undefined, given: string | null | undefined): boolean {
  if (!expected || !given) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

export interface InternalAuthOptions {
  /** INTERNAL_TOKEN; unset, every request is refused (a service started without it serves no internal call). */
  token: string | undefined;
  /**
   * Path prefixes guarded by their own credential instead, e.g. public-api's `/admin` (the ADMIN_TOKEN in
   * `Authorization: Bearer` or `x-admin-token`): there the internal token is not asked for, and Bearer is not read.
   */
  exceptPrefixes?: string[];
}

/**
 * The shared internal token of the cluster-only routes (issue 49 item 2): `x-internal-token: <token>`, or
 * `Authorization: Bearer <token>` (those routes take no API key, so the header is free). Mount it after the health
 * routes (probes and Prometheus carry no token). Missing or wrong: 401.
 */
export function internalAuth(opts: InternalAuthOptions): RequestHandler {
  const except = opts.exceptPrefixes ?? [];
  return (req, _res, next) => {
    if (except.some((p) => req.path === p || req.path.startsWith(`${p}/`))) return next();
    const given = req.header(INTERNAL_TOKEN_HEADER) ?? bearerToken(req.header("authorization"));
    if (isInternalToken(opts.token, given)) return next();
    next(new AppError(ErrorCode.UNAUTHORIZED, MSG_INTERNAL_TOKEN));
  };
}
