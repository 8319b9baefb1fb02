import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import { finishApp, type Lifecycle } from "@emailsvc/http";
import { baseApp } from "@emailsvc/runtime";
import type { Deps } from "./deps";
import { providerWebhookFastPath } from "./notifications/provider-webhook.routes";
import { trackingFastPath } from "./tracking/tracking.routes";
import { unsubscribeRouter } from "./unsubscribe/unsubscribe.routes";

/**
 * Every route here is a machine endpoint hit once per email event (pixel, click, SNS delivery), so all are
 * mounted ahead of the per-request access log: at thousands of requests a second that log line cost more than
 * the work. Refusals and failures are still logged by the routes themselves.
 */
export function createApp(deps: Deps, lifecycle?: Pick<Lifecycle, "isAcceptingTraffic">): Express {
  const record = (activityId: string, kind: "open" | "click", url?: string) =>
    deps.hits.add({ activityId, kind, at: new Date(), ...(url ? { url } : {}) });
  const webhook = { verify: deps.verify, broker: deps.broker, logger: deps.logger };
  const app = baseApp(deps, lifecycle);
  // Unsubscribe pages: rare, human requests, served by Express (behind the access log).
  app.use(unsubscribeRouter({ db: deps.db, secret: deps.env.TRACKING_SECRET }));
  finishApp(app, deps.logger);
  // An Express app is `(req, res, next) => app.handle(req, res, next)`: putting the tracking routes and the SNS
  // receiver (POST /webhooks/provider, only served here) in front of `handle` serves them for the real server and
  // for supertest alike, before Express touches the request.
  const tracking = trackingFastPath({ record, secret: deps.env.TRACKING_SECRET });
  const provider = providerWebhookFastPath(webhook);
  const handle = (app as unknown as { handle: Handle }).handle.bind(app);
  (app as unknown as { handle: Handle }).handle = (req, res, next) => {
    if (!tracking(req, res) && !provider(req, res)) handle(req, res, next);
  };
  return app;
}

type Handle = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;
