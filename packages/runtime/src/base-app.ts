import type { Express } from "express";
import { createServiceApp, type Lifecycle } from "@emailsvc/http";
import { type BaseDeps, baseReadiness } from "./base-deps";

export type Traffic = Pick<Lifecycle, "isAcceptingTraffic">;

/** A service's Express app with health, readiness (database + broker), metrics and request logging. */
export function baseApp(
  deps: BaseDeps,
  lifecycle?: Traffic,
  opts: { early?: (app: Express) => void } = {},
): Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: baseReadiness(deps),
    ...(lifecycle ? { isAcceptingTraffic: lifecycle.isAcceptingTraffic } : {}),
    ...(opts.early ? { early: opts.early } : {}),
  });
}
