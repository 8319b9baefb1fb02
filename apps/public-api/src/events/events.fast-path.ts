import type { IncomingMessage, ServerResponse } from "node:http";
import type { EventTracker } from "@emailsvc/db";
import {
  authenticateKey,
  fastRoute,
  isPlainJsonRequest,
  readJsonBody,
  type ApiKeyLookup,
  type RateLimitVerdict,
} from "@emailsvc/http";
import type { Logger, Metrics } from "@emailsvc/observability";
import { trackOneEvent } from "./events.routes";

/** Express's `jsonBody({ limit: EVENTS_BODY_LIMIT })`: 10 MB. */
const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * POST /v1/events, one event per request, is the busiest endpoint a product calls (every page view, every
 * click): served on plain node:http ahead of Express, in the same order of checks as the Express route (key,
 * rate limit, body, validation) and with the same answers. A request this path does not take as Express would
 * (another charset, a compressed or non-JSON body) goes to the Express route, which answers it in full.
 */
export function eventsFastPath(deps: {
  track: EventTracker;
  lookupApiKey: ApiKeyLookup;
  countEvent: (keyId: string) => Promise<RateLimitVerdict | null>;
  logger: Logger;
  metrics: Pick<Metrics, "httpDuration">;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  return fastRoute({
    method: "POST",
    path: "/v1/events",
    logger: deps.logger,
    metrics: deps.metrics,
    accepts: isPlainJsonRequest,
    handle: async (r) => {
      const auth = await authenticateKey(deps.lookupApiKey, r.req.headers.authorization);
      const limit = await deps.countEvent(auth.keyId);
      if (limit) {
        Object.assign(r.headers, limit.headers);
        if (limit.refused) throw limit.refused;
      }
      const body = await readJsonBody(r.req, BODY_LIMIT_BYTES);
      return {
        status: 201,
        body: await trackOneEvent(deps.track, auth.projectId, r.req.headers["idempotency-key"], body),
      };
    },
  });
}
