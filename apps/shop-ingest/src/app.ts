import type { Express } from "express";
import { createServiceApp, finishApp, type Lifecycle } from "@emailsvc/http";
import { baseReadiness } from "@emailsvc/runtime";
import type { Deps } from "./deps";

export function createApp(deps: Deps, lifecycle?: Pick<Lifecycle, "isAcceptingTraffic">): Express {
  const app = createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: baseReadiness(deps),
    ...(lifecycle ? { isAcceptingTraffic: lifecycle.isAcceptingTraffic } : {}),
  });
  return finishApp(app, deps.logger);
}
