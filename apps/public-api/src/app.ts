import type { Express } from "express";
import { finishApp, jsonBody } from "@emailsvc/http";
import { baseApp, type Traffic } from "@emailsvc/runtime";
import { adminAuth } from "./admin/admin-auth";
import { adminRouter } from "./admin/admin.routes";
import type { Deps } from "./deps";
import { eventsRouter } from "./events/events.routes";
import { leadsRouter } from "./leads/leads.routes";
import { rateLimits } from "./listing/rate-limits";
import { docsRouter } from "./docs/docs.routes";
import { batchRouter } from "./sends/batch.routes";
import { scheduledSendsRouter } from "./sends/scheduled-sends.routes";
import { internalSendRouter, v1SendRouter } from "./sends/send.routes";
import type { SendDeps } from "./sends/send-deps";

export function sendDepsOf(deps: Deps): SendDeps {
  return {
    db: deps.db,
    broker: deps.broker,
    logger: deps.logger,
    downloader: deps.downloader,
    store: deps.attachmentStore,
    templateCache: deps.templateCache,
    outbox: deps.outbox,
    accepts: deps.accepts,
    rpcTimeoutMs: deps.env.SEND_RPC_TIMEOUT_MS,
  };
}

/** Public port: the /v1 API (Bearer key). */
export function createApp(deps: Deps, lifecycle?: Traffic): Express {
  const app = baseApp(deps, lifecycle);
  app.use(docsRouter());
  app.use(
    v1SendRouter({
      send: sendDepsOf(deps),
      lookupApiKey: deps.lookupApiKey,
      idempotencyStore: deps.idempotencyStore,
      logger: deps.logger,
    }),
  );
  app.use(scheduledSendsRouter({ db: deps.db, lookupApiKey: deps.lookupApiKey }));
  app.use(
    batchRouter({
      send: sendDepsOf(deps),
      lookupApiKey: deps.lookupApiKey,
      idempotencyStore: deps.idempotencyStore,
      logger: deps.logger,
    }),
  );
  const limits = rateLimits(deps);
  app.use(eventsRouter({ db: deps.db, lookupApiKey: deps.lookupApiKey, rateLimit: limits.events }));
  app.use(leadsRouter({ db: deps.db, lookupApiKey: deps.lookupApiKey, rateLimit: limits.leads }));
  return finishApp(app, deps.logger);
}

/** Internal port (cluster only, never routed by the gateway): POST /send-email, /trigger-job, /admin. */
export function createInternalApp(deps: Deps, lifecycle?: Traffic): Express {
  const app = baseApp(deps, lifecycle);
  app.use(internalSendRouter({ send: sendDepsOf(deps) }));
  app.use(
    "/admin",
    adminAuth(deps.env.ADMIN_TOKEN),
    jsonBody({ limit: "2mb" }),
    adminRouter({
      db: deps.db,
      encryptionKey: deps.env.API_KEY_ENCRYPTION_KEY,
      onTemplateChanged: (projectId, templateId) => deps.templateCache.invalidate(projectId, templateId),
      onKeysChanged: (projectId) => deps.apiKeys.keysChanged(projectId),
      kickOutbox: () => deps.outbox.kick(),
    }),
  );
  return finishApp(app, deps.logger);
}
