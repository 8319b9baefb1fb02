import type { Envelope } from "@emailsvc/contracts";
import { RetryableError } from "@emailsvc/messaging";
import type { EventPayload } from "../use-cases/build-event-body";
import { deliverWebhook, type DeliverDeps } from "../use-cases/deliver-webhook";

// Events that become client webhooks (email.failed and email.inbound have their own paths).
const OUTBOUND = new Set([
  "email.sent",
  "email.delivered",
  "email.bounced",
  "email.complained",
  "email.opened",
  "email.clicked",
  "email.rejected",
  "email.delivery_delayed",
]);

/** email.* → one delivery attempt; a failed attempt comes back after the next delay of the retry schedule. */
export function eventsConsumer(deps: DeliverDeps) {
  return async (envelope: Envelope<EventPayload>): Promise<void> => {
    if (!OUTBOUND.has(envelope.type)) return;
    const outcome = await deliverWebhook(deps, envelope.id, envelope.type, envelope.payload);
    if (outcome === "retry") throw new RetryableError("webhook delivery failed; retrying");
  };
}
