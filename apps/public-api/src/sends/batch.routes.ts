import { Router, type Request } from "express";
import {
  apiKeyAuth,
  getAuth,
  idempotency,
  idempotencyOf,
  jsonBody,
  methodNotAllowed,
  sendReplay,
  type ApiKeyLookup,
  type IdempotencyStore,
} from "@emailsvc/http";
import type { Logger } from "@emailsvc/observability";
import { acceptBatch } from "./accept-batch";
import type { SendDeps } from "./send-deps";
import { recipientsOf, type SendLimits } from "./send-limits";

/**
 * A full batch (12,500 recipients with data) is several MB: this route alone gets a large body limit, and parses it
 * in slices (jsonBody's `sliced`), so that other requests are answered meanwhile.
 */
export const BATCH_BODY_LIMIT = "12mb";

export function batchRouter(deps: {
  send: SendDeps;
  limits: Pick<SendLimits, "requests" | "dailyCap">;
  lookupApiKey: ApiKeyLookup;
  idempotencyStore: IdempotencyStore;
  logger: Logger;
}): Router {
  const r = Router();
  r.post(
    "/v1/send-batch",
    apiKeyAuth(deps.lookupApiKey),
    deps.limits.requests,
    ...jsonBody({ limit: BATCH_BODY_LIMIT, sliced: true }),
    idempotency({ store: deps.idempotencyStore, logger: deps.logger }),
    deps.limits.dailyCap(recipientsOf),
    async (req: Request, res) => {
      const out = await acceptBatch(
        deps.send,
        { auth: getAuth(res), idempotency: idempotencyOf(res), correlationId: (req as { id?: string }).id },
        req.body,
      );
      if (out.replayed) return sendReplay(res, out);
      // With an Idempotency-Key the middleware caches the answer through res.json; otherwise the text serialized
      // in slices goes out as it is (res.json would stringify ~1 MB again and hash it for an ETag, in one piece).
      if (out.bodyJson === undefined || idempotencyOf(res)) return void res.status(out.status).json(out.body);
      res
        .status(out.status)
        .set("Content-Type", "application/json; charset=utf-8")
        .set("Content-Length", String(Buffer.byteLength(out.bodyJson)))
        .end(out.bodyJson);
    },
  );
  r.all("/v1/send-batch", methodNotAllowed("POST"));
  return r;
}
