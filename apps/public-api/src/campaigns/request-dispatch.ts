import { Exchanges, makeEnvelope, RoutingKeys, type ProjectId } from "@emailsvc/contracts";
import { insertOutboxRows, type PoolClient } from "@emailsvc/db";

/**
 * A campaign.trigger-requested for campaign-dispatcher, in the caller's transaction: a dispatcher writes the new
 * campaign's ledger, or dispatches the resumed one, at once instead of at its next 5-second tick.
 */
export async function requestDispatch(
  c: PoolClient,
  projectId: ProjectId,
  campaignId: string,
): Promise<void> {
  await insertOutboxRows(c, [
    {
      exchange: Exchanges.jobs,
      routingKey: RoutingKeys.campaignTriggerRequested,
      payload: makeEnvelope(RoutingKeys.campaignTriggerRequested, { campaignId }, { projectId }),
    },
  ]);
}
