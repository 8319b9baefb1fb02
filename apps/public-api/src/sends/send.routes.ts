import { Router, type Request, type Response } from "express";
import {
  apiKeyAuth,
  getAuth,
  idempotency,
  idempotencyOf,
  jsonBody,
  methodNotAllowed,
  requireJson,
  sendReplay,
  type ApiKeyLookup,
  type IdempotencyStore,
} from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";
import { internalSendEmail } from "./internal-send-email";
import type { SendDeps, SendOutcome } from "./send-deps";
import { sendEmail } from "./send-email";
import { recipientsOf, type SendLimits } from "./send-limits";
import { sendTemplateEmail } from "./send-template-email";

/**
 * Room for 10 MB of attachments in base64 (≈13.4 MB) plus bodies of up to 5,000,000 characters each (html and
 * text). Only the send routes get it; everything else keeps a small limit.
 */
export const SEND_BODY_LIMIT = "32mb";
export const SMALL_BODY_LIMIT = "1mb";

const correlationIdOf = (req: Request): string | undefined => (req as { id?: string }).id;

function respond(res: Response, out: SendOutcome): void {
  if (out.replayed) return sendReplay(res, out);
  res.status(out.status).json(out.body);
}

export interface V1SendRoutesDeps {
  send: SendDeps;
  limits: Pick<SendLimits, "requests" | "dailyCap">;
  lookupApiKey: ApiKeyLookup;
  idempotencyStore: IdempotencyStore;
  logger: Logger;
}

/**
 * Public v1 send endpoints (spec 4.1, 4.2): key first (401 before any parsing), its request limit, then body, then
 * idempotency (a replay is answered before the day's count), then the project's daily cap.
 */
export function v1SendRouter(deps: V1SendRoutesDeps): Router {
  const r = Router();
  const auth = apiKeyAuth(deps.lookupApiKey);
  const bigJson = jsonBody({ limit: SEND_BODY_LIMIT });
  const smallJson = jsonBody({ limit: SMALL_BODY_LIMIT });
  const idem = idempotency({ store: deps.idempotencyStore, logger: deps.logger });
  const cap = deps.limits.dailyCap(recipientsOf);

  r.post("/v1/send-email", auth, deps.limits.requests, ...bigJson, idem, cap, async (req, res) => {
    const ctx = { auth: getAuth(res), idempotency: idempotencyOf(res), correlationId: correlationIdOf(req) };
    respond(res, await sendEmail(deps.send, ctx, req.body));
  });
  r.post("/v1/send-template-email", auth, deps.limits.requests, ...smallJson, idem, cap, async (req, res) => {
    const ctx = { auth: getAuth(res), idempotency: idempotencyOf(res), correlationId: correlationIdOf(req) };
    respond(res, await sendTemplateEmail(deps.send, ctx, req.body));
  });
  r.all(["/v1/send-email", "/v1/send-template-email"], methodNotAllowed("POST"));
  return r;
}

/** Internal POST /send-email (spec 4.4): no key, JSON only (415), answered once the send-worker has sent it. */
export function internalSendRouter(deps: { send: SendDeps }): Router {
  const r = Router();
  r.post("/send-email", requireJson, ...jsonBody({ limit: SEND_BODY_LIMIT }), async (req, res) => {
    const ctx = {
      projectHeader: req.header("x-project-id"),
      source: req.header("x-source"),
      correlationId: correlationIdOf(req),
    };
    respond(res, await internalSendEmail(deps.send, ctx, req.body));
  });
  return r;
}
