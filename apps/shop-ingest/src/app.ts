import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import { finishApp } from "@emailsvc/http";
import { baseApp, type Traffic } from "@emailsvc/runtime";
import type { Deps } from "./deps";
import { shopWebhookFastPath } from "./webhooks/shop-webhook.fast-path";

/**
 * POST /webhooks/shop/:topic on plain node:http in front of Express (an Express app is `app.handle`, so the
 * real server and supertest both reach it); Express serves health, readiness and metrics.
 */
export function createApp(deps: Deps, lifecycle?: Traffic): Express {
  const app = finishApp(baseApp(deps, lifecycle), deps.logger);
  const shop = shopWebhookFastPath({
    db: deps.receiverDb,
    encryptionKey: deps.env.API_KEY_ENCRYPTION_KEY,
    shopCacheMs: deps.env.SHOP_CACHE_MS,
    statementsInFlight: deps.env.SHOP_RECEIVER_POOL_MAX - 1,
    kickOutbox: () => deps.outbox.kick(),
    logger: deps.logger,
    metrics: deps.metrics,
  });
  const handle = (app as unknown as { handle: Handle }).handle.bind(app);
  (app as unknown as { handle: Handle }).handle = (req, res, next) => {
    if (!shop(req, res)) handle(req, res, next);
  };
  return app;
}

type Handle = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;
