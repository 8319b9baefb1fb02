import type { Express } from "express";
import { baseApp, type Traffic } from "@emailsvc/runtime";
import type { Deps } from "./deps";

/** The HTTP port: /healthz, /readyz (database and broker) and /metrics. The SMTP listeners are in smtp/. */
export function createApp(deps: Deps, lifecycle?: Traffic): Express {
  return baseApp(deps, lifecycle);
}
