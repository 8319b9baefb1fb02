import type { Envelope } from "@emailsvc/contracts";
import { DeferredError, RetryableError } from "@emailsvc/messaging";
import type { EventPayload } from "../use-cases/build-event-body";
import { deliverWebhook, type DeliverDeps } from "../use-cases/deliver-webhook";
import type { SlowReceiverGate } from "../use-cases/slow-receivers";

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

/**
 * email.* → one delivery attempt; a failed attempt comes back after the next delay of the retry schedule. With a
 * `gate`, an event whose destination is slow and already has its share of attempts in flight is deferred (it
 * comes back after the queue's `deferMs` without using up an attempt), so the other projects keep their slots.
 */
export function eventsConsumer(deps: DeliverDeps, gate?: SlowReceiverGate) {
  return async (envelope: Envelope<EventPayload>): Promise<void> => {
    if (!OUTBOUND.has(envelope.type)) return;
    const { projectId, isTest } = envelope.payload;
    const release =
      gate && projectId && typeof isTest === "boolean" ? gate.admit(projectId, isTest) : undefined;
    if (release === null) throw new DeferredError("the project's webhook receiver is slow; deferred");
    try {
      const outcome = await deliverWebhook(deps, envelope.id, envelope.type, envelope.payload);
      if (outcome === "retry") throw new RetryableError("webhook delivery failed; retrying");
    } finally {
      release?.();
    }
  };
}
