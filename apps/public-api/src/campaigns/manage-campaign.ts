import { AppError, ErrorCode, RESUMABLE_CAMPAIGN_STATUSES, type ProjectId } from "@emailsvc/contracts";
import {
  cancelCampaign as cancelRow,
  type CampaignRow,
  findCampaign,
  guardFigures,
  pauseCampaign as pauseRow,
  triggerCampaign,
  withTransaction,
} from "@emailsvc/db";
import type { CampaignDeps } from "./campaign-deps";
import { requestDispatch } from "./request-dispatch";

async function existing(deps: CampaignDeps, projectId: ProjectId, id: string): Promise<CampaignRow> {
  const c = await findCampaign(deps.db, projectId, id);
  if (!c) throw new AppError(ErrorCode.NOT_FOUND, "Campaign not found");
  return c;
}

/** Pauses a pending, processing or rate-limited campaign (by the user): no recipient is dispatched until resumed. */
export async function pauseCampaign(
  deps: CampaignDeps,
  projectId: ProjectId,
  id: string,
): Promise<CampaignRow> {
  const paused = await pauseRow(deps.db, projectId, id);
  if (paused) return paused;
  const c = await existing(deps, projectId, id);
  throw new AppError(
    ErrorCode.CONFLICT,
    `Campaign is ${c.status}: only a pending, processing or rate-limited campaign can be paused`,
  );
}

/**
 * Resumes a paused or rate-limited campaign (and starts a pending one now), as POST /trigger-campaign does, and
 * asks campaign-dispatcher to dispatch it at once.
 */
export async function resumeCampaign(
  deps: CampaignDeps,
  projectId: ProjectId,
  id: string,
): Promise<{ campaign: CampaignRow; previousStatus: string }> {
  const outcome = await withTransaction(deps.db, async (c) => {
    const o = await triggerCampaign(c, id, (campaign) => guardFigures(c, campaign), projectId);
    if (o.kind === "triggered") await requestDispatch(c, projectId, id);
    return o;
  });
  if (outcome.kind === "not_found") throw new AppError(ErrorCode.NOT_FOUND, "Campaign not found");
  if (outcome.kind === "not_resumable")
    throw new AppError(ErrorCode.CONFLICT, `Campaign is ${outcome.campaign.status} and cannot be resumed`, {
      extra: { currentStatus: outcome.campaign.status, resumableStatuses: [...RESUMABLE_CAMPAIGN_STATUSES] },
    });
  deps.kickOutbox();
  return { campaign: outcome.campaign, previousStatus: outcome.previousStatus };
}

/**
 * Cancels a campaign: its pending recipients are never sent, and its sends still waiting for a send-worker are
 * cancelled and given back to the quota.
 */
export async function cancelCampaign(
  deps: CampaignDeps,
  projectId: ProjectId,
  id: string,
): Promise<{ campaign: CampaignRow; cancelledRecipients: number; cancelledSends: number }> {
  const out = await withTransaction(deps.db, (c) => cancelRow(c, projectId, id));
  if (out) return out;
  const c = await existing(deps, projectId, id);
  throw new AppError(ErrorCode.CONFLICT, `Campaign is ${c.status} and cannot be cancelled`);
}
