import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import { finishApp } from "@emailsvc/http";
import { baseApp, type Traffic } from "@emailsvc/runtime";
import { attachmentLinkFastPath } from "./attachments/attachment-link.routes";
import type { Deps } from "./deps";
import { processDepsOf } from "./process-deps";
import { inboundProviderFastPath } from "./replies/inbound-provider.routes";

/**
 * POST /api/inbound/provider (the SNS receiver) and GET /api/inbound/attachments/:id (signed attachment links),
 * both on plain node:http in front of Express; Express serves health, readiness and metrics.
 */
export function createApp(deps: Deps, lifecycle?: Traffic): Express {
  const app = finishApp(baseApp(deps, lifecycle), deps.logger);
  const receiver = inboundProviderFastPath({
    db: deps.db,
    verify: deps.verify,
    logger: deps.logger,
    kickOutbox: () => deps.outbox.kick(),
    process: processDepsOf(deps),
    syncBudgetMs: deps.env.INBOUND_SYNC_BUDGET_MS,
    syncMaxInFlight: deps.env.INBOUND_SYNC_MAX_IN_FLIGHT,
  });
  const links = attachmentLinkFastPath({
    db: deps.db,
    s3: deps.s3,
    bucket: deps.env.INBOUND_ATTACHMENTS_BUCKET ?? deps.env.INBOUND_BUCKET,
    secret: deps.env.TRACKING_SECRET,
    presignTtlSeconds: deps.env.INBOUND_PRESIGN_TTL_SECONDS,
    logger: deps.logger,
  });
  const handle = (app as unknown as { handle: Handle }).handle.bind(app);
  (app as unknown as { handle: Handle }).handle = (req, res, next) => {
    if (!receiver(req, res) && !links(req, res)) handle(req, res, next);
  };
  return app;
}

type Handle = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;
