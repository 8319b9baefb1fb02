import { Queues, RoutingKeys } from "@emailsvc/contracts";
import { defineConsumer } from "@emailsvc/messaging";

/**
 * campaign.trigger-requested: the admin API created, changed or resumed a campaign (its state is already
 * written); a tick now writes its ledger or dispatches it, instead of at the next 5-second tick.
 */
export function commandsConsumer(kick: () => void) {
  return defineConsumer(Queues.campaignDispatcherCommands, {
    [RoutingKeys.campaignTriggerRequested]: async () => {
      kick();
    },
  });
}
