import { Queues, RoutingKeys, type Envelope } from "@emailsvc/contracts";
import { DeferredError, defineConsumer, RetryableError } from "@emailsvc/messaging";
import type { EventPayload } from "../use-cases/build-event-body";
import {
  deliverInboundWebhook,
  deliverWebhook,
  type DeliverDeps,
  type InboundPayload,
} from "../use-cases/deliver-webhook";
import type { FailingReceivers } from "../use-cases/failing-receivers";
import type { SlowReceiverGate } from "../use-cases/slow-receivers";

/**
 * email.* → one delivery attempt; a failed attempt comes back after the next delay of the retry schedule. With a
 * `gate`, an event whose destination is slow and already has its share of attempts in flight is deferred (it
 * comes back after the queue's `deferMs` without using up an attempt), so the other projects keep their slots.
 * With `failing`, an event whose destination keeps failing is deferred the same way unless it is the one probe.
 */
export function eventsConsumer(deps: DeliverDeps, gate?: SlowReceiverGate, failing?: FailingReceivers) {
  const deliver = async (envelope: Envelope<EventPayload>): Promise<void> => {
    const { projectId, isTest } = envelope.payload;
    const known = Boolean(projectId) && typeof isTest === "boolean";
    const report = failing && known ? failing.admit(projectId!, isTest!) : undefined;
    if (report === null) throw new DeferredError("the project's webhook receiver is failing; deferred");
    const release = gate && known ? gate.admit(projectId!, isTest!) : undefined;
    if (release === null) {
      report?.("none");
      throw new DeferredError("the project's webhook receiver is slow; deferred");
    }
    try {
      const outcome = await deliverWebhook(deps, envelope.id, envelope.type, envelope.payload, report);
      if (outcome === "retry") throw new RetryableError("webhook delivery failed; retrying");
    } finally {
      report?.("none"); // no HTTP attempt was made (or it was reported already)
      release?.();
    }
  };
  // An inbound reply goes to the project's inbound URLs: the same gates, keyed apart from the event URLs (another
  // receiver), the same attempt log, retries and redelivery.
  const deliverInbound = async (envelope: Envelope<InboundPayload>): Promise<void> => {
    const { projectId, isTest } = envelope.payload;
    const known = typeof isTest === "boolean";
    const report = failing && known ? failing.admit(projectId, isTest, "inbound") : undefined;
    if (report === null)
      throw new DeferredError("the project's inbound webhook receiver is failing; deferred");
    const release = gate && known ? gate.admit(projectId, isTest, "inbound") : undefined;
    if (release === null) {
      report?.("none");
      throw new DeferredError("the project's inbound webhook receiver is slow; deferred");
    }
    try {
      const outcome = await deliverInboundWebhook(deps, envelope.id, envelope.payload, report);
      if (outcome === "retry") throw new RetryableError("inbound webhook delivery failed; retrying");
    } finally {
      report?.("none");
      release?.();
    }
  };
  // One handler per routing key `email.#` brings here (the catalogue's list): the events that become client
  // webhooks are delivered; email.failed reaches clients by its own path, so it is acked.
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
    [RoutingKeys.emailInbound]: (envelope) => deliverInbound(envelope as Envelope<InboundPayload>),
  });
}
