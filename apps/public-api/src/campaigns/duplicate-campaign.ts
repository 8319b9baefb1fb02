import { AppError, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { type CampaignRow, findCampaign } from "@emailsvc/db";
import type { CampaignDeps } from "./campaign-deps";
import { createCampaign } from "./create-campaign";
import { contentOfRow } from "./campaign-content";
import type { Preflight } from "./preflight-campaign";

/**
 * A new campaign with another's content, sender, audience and pacing (its audience evaluated now, into a ledger of
 * its own), named "<name> (copy)" starting at once.
 */
export async function duplicateCampaign(
  deps: CampaignDeps,
  projectId: ProjectId,
  id: string,
): Promise<{ campaign: CampaignRow; preflight: Preflight }> {
  const source = await findCampaign(deps.db, projectId, id);
  if (!source) throw new AppError(ErrorCode.NOT_FOUND, "Campaign not found");
  const content = { ...contentOfRow(source), name: `${source.name} (copy)`.slice(0, 200), startAt: null };
  return createCampaign(deps, projectId, content, source.id);
}
