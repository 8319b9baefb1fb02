import { timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import { AppError, bearerToken, ErrorCode } from "@emailsvc/http";

/** The admin API lives on the internal port and additionally requires the ADMIN_TOKEN from env. */
export function adminAuth(adminToken: string): RequestHandler {
  const expected = Buffer.from(adminToken);
  return (req, _res, next) => {
    const given = Buffer.from(bearerToken(req.header("authorization")) ?? req.header("x-admin-token") ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return next(new AppError(ErrorCode.UNAUTHORIZED, "Unauthorized: invalid or missing admin token"));
    }
    next();
  };
}
