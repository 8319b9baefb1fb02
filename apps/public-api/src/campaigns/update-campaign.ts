import { AppError, type CampaignUpdateInput, ErrorCode, type ProjectId } from "@emailsvc/contracts";
import { type CampaignRow, findCampaign, updateUnstartedCampaign, withTransaction } from "@emailsvc/db";
import type { CampaignDeps } from "./campaign-deps";
import { blockedByPreflight } from "./create-campaign";
import { applyUpdate, changesAudience, contentOfRow } from "./campaign-content";
import { type Preflight, preflightCampaign } from "./preflight-campaign";
import { requestDispatch } from "./request-dispatch";

/**
 * Changes a campaign that has not started (`pending` with nothing dispatched, or still `initializing`). The result
 * passes the pre-flight check again; a new audience or email type writes the ledger again (back to `initializing`).
 * 409 once it has started.
 */
export async function updateCampaign(
  deps: CampaignDeps,
  projectId: ProjectId,
  id: string,
  update: CampaignUpdateInput,
): Promise<{ campaign: CampaignRow; preflight: Preflight }> {
  const current = await findCampaign(deps.db, projectId, id);
  if (!current) throw new AppError(ErrorCode.NOT_FOUND, "Campaign not found");
  const before = contentOfRow(current);
  const after = applyUpdate(before, update);
  if ((after.html === null) === (after.templateId === null))
    throw new AppError(ErrorCode.VALIDATION, "give html or template_id (one of the two)");
  const preflight = await preflightCampaign(deps, projectId, after);
  if (!preflight.ok) throw blockedByPreflight("Campaign not updated", preflight);
  const rewrite = changesAudience(before, after);
  const campaign = await withTransaction(deps.db, async (c) => {
    const row = await updateUnstartedCampaign(c, projectId, id, after, rewrite);
    if (row && rewrite) await requestDispatch(c, projectId, id);
    return row;
  });
  if (!campaign)
    throw new AppError(
      ErrorCode.CONFLICT,
      `Campaign is ${current.status === "pending" ? "already being sent" : current.status}: only a campaign that has not started can be changed`,
    );
  if (rewrite) deps.kickOutbox();
  return { campaign, preflight };
}
