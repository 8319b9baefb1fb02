import { type Request, type Response, Router } from "express";
import { AppError, ErrorCode, triggerCampaignId } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { jsonBody, methodNotAllowed } from "@emailsvc/http";
import { triggerCampaign } from "./trigger-campaign";

/** Internal port only (never routed by the gateway): spec 4.8's POST /trigger-campaign. */
export function triggerRouter(deps: { db: Db; kick: () => void }): Router {
  const r = Router();
  r.post("/trigger-campaign", jsonBody({ limit: "16kb" }), async (req: Request, res: Response) => {
    const parsed = triggerCampaignId(req.body);
    if ("error" in parsed) throw new AppError(ErrorCode.VALIDATION, parsed.error);
    res.json(await triggerCampaign(deps, parsed.campaignId));
  });
  r.all("/trigger-campaign", methodNotAllowed("POST"));
  return r;
}
