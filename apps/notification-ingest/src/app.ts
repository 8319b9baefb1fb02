import type { Express } from "express";
import { finishApp, type Lifecycle } from "@emailsvc/http";
import { baseApp } from "@emailsvc/runtime";
import type { Deps } from "./deps";
import { providerWebhookRouter } from "./routes/provider-webhook.routes";
import { mountTracking } from "./routes/tracking.routes";

/**
 * Every route here is a machine endpoint hit once per email event (pixel, click, SNS delivery), so all are
 * mounted ahead of the per-request access log: at thousands of requests a second that log line cost more than
 * the work. Refusals and failures are still logged by the routes themselves.
 */
export function createApp(deps: Deps, lifecycle?: Pick<Lifecycle, "isAcceptingTraffic">): Express {
  const app = baseApp(deps, lifecycle, {
    early: (a) => {
      mountTracking(a, {
        secret: deps.env.TRACKING_SECRET,
        logger: deps.logger,
        record: (activityId, kind, url) =>
          deps.hits.add({ activityId, kind, at: new Date(), ...(url ? { url } : {}) }),
      });
      a.use(providerWebhookRouter({ verify: deps.verify, broker: deps.broker, logger: deps.logger }));
    },
  });
  return finishApp(app, deps.logger);
}
