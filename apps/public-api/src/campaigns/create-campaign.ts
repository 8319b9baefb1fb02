import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import {
  type CampaignContent,
  type CampaignRow,
  insertCampaign,
  timeOrderedUuid,
  withTransaction,
} from "@emailsvc/db";
import type { CampaignDeps } from "./campaign-deps";
import { type Preflight, preflightCampaign } from "./preflight-campaign";
import { requestDispatch } from "./request-dispatch";

/** The 400 of a campaign the pre-flight check blocks: its errors in the message, the whole check in `preflight`. */
export function blockedByPreflight(what: string, preflight: Preflight): AppError {
  return new AppError(ErrorCode.VALIDATION, `${what}: ${preflight.errors.map((e) => e.message).join("; ")}`, {
    extra: { preflight },
  });
}

/**
 * Creates a campaign (the dashboard's job, here through the admin API): the pre-flight check first (a blocking
 * error refuses it), then the campaign row, `initializing`, and a campaign.trigger-requested in the same
 * transaction. campaign-dispatcher writes its recipient ledger (one INSERT … SELECT) and makes it `pending`.
 */
export async function createCampaign(
  deps: CampaignDeps,
  projectId: ProjectId,
  content: CampaignContent,
  duplicatedFrom: string | null = null,
): Promise<{ campaign: CampaignRow; preflight: Preflight }> {
  const preflight = await preflightCampaign(deps, projectId, content);
  if (!preflight.ok) throw blockedByPreflight("Campaign not created", preflight);
  const campaign = await withTransaction(deps.db, async (c) => {
    const row = await insertCampaign(c, projectId, timeOrderedUuid(), content, duplicatedFrom);
    await requestDispatch(c, projectId, row.id);
    return row;
  });
  deps.kickOutbox();
  return { campaign, preflight };
}
