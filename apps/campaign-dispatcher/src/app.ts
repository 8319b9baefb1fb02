import type { Express } from "express";
import { finishApp, internalAuth } from "@emailsvc/http";
import { baseApp, type Traffic } from "@emailsvc/runtime";
import type { Deps } from "./deps";
import { triggerRouter } from "./trigger/trigger.routes";

/** Public port: health, readiness and metrics only. */
export function createApp(deps: Deps, lifecycle?: Traffic): Express {
  return finishApp(baseApp(deps, lifecycle), deps.logger);
}

/**
 * Internal port (cluster only, never routed by the gateway): POST /trigger-campaign, behind the shared internal
 * token (issue 49 item 2: any pod could start or resume any tenant's campaign); health and metrics stay open.
 */
export function createInternalApp(deps: Deps, lifecycle?: Traffic): Express {
  const app = baseApp(deps, lifecycle);
  app.use(internalAuth({ token: deps.env.INTERNAL_TOKEN }));
  app.use(triggerRouter({ db: deps.db, kick: () => deps.kick() }));
  return finishApp(app, deps.logger);
}
