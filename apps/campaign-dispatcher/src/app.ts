import type { Express } from "express";
import { finishApp } from "@emailsvc/http";
import { baseApp, type Traffic } from "@emailsvc/runtime";
import type { Deps } from "./deps";

/** Health, readiness and metrics only: this service's work arrives from RabbitMQ (or its poller). */
export function createApp(deps: Deps, lifecycle?: Traffic): Express {
  return finishApp(baseApp(deps, lifecycle), deps.logger);
}
