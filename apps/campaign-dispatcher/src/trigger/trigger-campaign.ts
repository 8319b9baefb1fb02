import {
  AppError,
  type CampaignStatus,
  ErrorCode,
  RESUMABLE_CAMPAIGN_STATUSES,
  type TriggerCampaignResponse,
} from "@emailsvc/contracts";
import { type Db, guardFigures, triggerCampaign as triggerRow, withTransaction } from "@emailsvc/db";
import { totalBatches } from "../dispatch/domain/pacing";

const MESSAGES: Record<string, string> = {
  pending: "Campaign started",
  paused: "Campaign resumed",
  rate_limited: "Campaign resumed",
  processing: "Campaign processing triggered",
};

/**
 * Why a campaign cannot be triggered, in words an operator reads, with what they can do instead: a campaign that
 * ended is never started again, but POST /admin/projects/{projectId}/campaigns/{id}/duplicate makes a new draft
 * of the same content and audience.
 */
function notResumableMessage(status: string, reason: string | null): string {
  const duplicate =
    "To send it again, duplicate it (POST /admin/projects/{projectId}/campaigns/{id}/duplicate) and start the copy.";
  switch (status) {
    case "initializing":
      return "Campaign is initializing (its recipients are being written) and cannot be triggered yet";
    case "failed":
      return (
        `This campaign failed${reason ? ` (${reason})` : ""}, so it cannot be started again. ` +
        `Fix the cause, then duplicate it (POST /admin/projects/{projectId}/campaigns/{id}/duplicate) and start the copy.`
      );
    case "completed":
      return `This campaign has already sent to all its recipients. ${duplicate}`;
    case "cancelled":
      return `This campaign was cancelled, so it cannot be started again. ${duplicate}`;
    default:
      return `Campaign is ${status} and cannot be triggered`;
  }
}

/**
 * Spec 4.8's POST /trigger-campaign: starts a `pending` campaign, resumes a `paused` or `rate_limited` one, and
 * kicks a `processing` one (`kick`: a dispatch tick at once). A campaign that ended (or is still being written)
 * is refused with its status and the resumable ones; an unknown one is 404.
 */
export async function triggerCampaign(
  deps: { db: Db; kick: () => void },
  campaignId: string,
): Promise<TriggerCampaignResponse> {
  const outcome = await withTransaction(deps.db, (c) =>
    triggerRow(c, campaignId, (campaign) => guardFigures(c, campaign)),
  );
  if (outcome.kind === "not_found") throw new AppError(ErrorCode.NOT_FOUND, "Campaign not found");
  if (outcome.kind === "not_resumable") {
    const status = outcome.campaign.status;
    throw new AppError(ErrorCode.VALIDATION, notResumableMessage(status, outcome.campaign.status_reason), {
      extra: { currentStatus: status, resumableStatuses: [...RESUMABLE_CAMPAIGN_STATUSES] },
    });
  }
  deps.kick();
  const c = outcome.campaign;
  const batchMode = c.batch_size !== null;
  return {
    success: true,
    message: MESSAGES[outcome.previousStatus]!,
    campaignId: c.id,
    previousStatus: outcome.previousStatus as CampaignStatus,
    batchMode,
    currentBatch: batchMode ? c.current_batch : 0,
    totalBatches: totalBatches(c.total_recipients, c.batch_size),
  };
}
