import type { Express } from "express";
import { createServiceApp, finishApp, type Lifecycle } from "@emailsvc/http";
import { baseReadiness } from "@emailsvc/runtime";
import type { Deps } from "./deps";
import { providerWebhookRouter } from "./routes/provider-webhook.routes";
import { mountTracking } from "./routes/tracking.routes";
import { recordTrackingHit } from "./use-cases/record-tracking-hit";

export function createApp(deps: Deps, lifecycle?: Pick<Lifecycle, "isAcceptingTraffic">): Express {
  const app = createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: baseReadiness(deps),
    ...(lifecycle ? { isAcceptingTraffic: lifecycle.isAcceptingTraffic } : {}),
    early: (a) =>
      mountTracking(a, {
        secret: deps.env.TRACKING_SECRET,
        logger: deps.logger,
        record: async (id, kind, url) => {
          if (await recordTrackingHit(deps.db, id, kind, url)) deps.relay.kick();
        },
      }),
  });
  app.use(providerWebhookRouter({ verify: deps.verify, broker: deps.broker, logger: deps.logger }));
  return finishApp(app, deps.logger);
}
