import { Queues, RoutingKeys, type Envelope } from "@emailsvc/contracts";
import { DeferredError, defineConsumer, RetryableError } from "@emailsvc/messaging";
import type { EventPayload } from "../use-cases/build-event-body";
import { deliverWebhook, type DeliverDeps } from "../use-cases/deliver-webhook";
import type { SlowReceiverGate } from "../use-cases/slow-receivers";

/**
 * email.* → one delivery attempt; a failed attempt comes back after the next delay of the retry schedule. With a
 * `gate`, an event whose destination is slow and already has its share of attempts in flight is deferred (it
 * comes back after the queue's `deferMs` without using up an attempt), so the other projects keep their slots.
 */
export function eventsConsumer(deps: DeliverDeps, gate?: SlowReceiverGate) {
  const deliver = async (envelope: Envelope<EventPayload>): Promise<void> => {
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
  // One handler per routing key `email.#` brings here (the catalogue's list): the events that become client
  // webhooks are delivered; email.failed and email.inbound reach clients by their own paths, so they are acked.
  const acknowledge = () => undefined;
  return defineConsumer(Queues.webhookDispatcherEvents, {
    [RoutingKeys.emailSent]: deliver,
    [RoutingKeys.emailDelivered]: deliver,
    [RoutingKeys.emailBounced]: deliver,
    [RoutingKeys.emailComplained]: deliver,
    [RoutingKeys.emailOpened]: deliver,
    [RoutingKeys.emailClicked]: deliver,
    [RoutingKeys.emailRejected]: deliver,
    [RoutingKeys.emailDeliveryDelayed]: deliver,
    [RoutingKeys.emailFailed]: acknowledge,
    [RoutingKeys.emailInbound]: acknowledge,
  });
}
