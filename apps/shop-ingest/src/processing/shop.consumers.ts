import { Queues, RoutingKeys, type ShopTopic, type ProjectId } from "@emailsvc/contracts";
import { createBatcher, type Db } from "@emailsvc/db";
import { defineConsumer, PermanentError } from "@emailsvc/messaging";
import type { Logger } from "@emailsvc/observability";
import { type DeliveryRef, type ProcessOutcome, processShopWebhooks } from "./process-shop-webhooks";

type Deps = {
  db: Db;
  logger: Logger;
  stepUnitSeconds: number;
  /** deliveries of one topic applied together at most */
  batch: number;
};

/**
 * A message names the deliveries of one group commit (one, or many under load) and is settled on its own (acked,
 * retried or parked). The deliveries of all the messages the consumer holds at once are applied together: those of
 * one event-loop turn (a prefetch burst) and those that arrive while up to two batches run. A batch that fails is
 * applied again one delivery at a time, so only the failing one retries (and its message with it).
 * Two in flight: a batch is four or five round trips, and with one at a time a slow commit (a busy disk) held the
 * whole topic; with two, processing kept up with the receiver.
 */
function handler(deps: Deps, topic: ShopTopic) {
  const batcher = createBatcher<DeliveryRef, ProcessOutcome>({
    run: (refs) => processShopWebhooks(deps, topic, refs),
    maxBatch: deps.batch,
    maxInFlight: 2,
    gatherTurn: true,
  });
  return async (envelope: {
    projectId: ProjectId | null;
    payload: { webhookEventIds?: string[]; webhookEventId?: string };
  }) => {
    const projectId = envelope.projectId;
    if (!projectId) throw new PermanentError(`a ${topic} delivery without its project`);
    const ids = envelope.payload.webhookEventIds ?? [envelope.payload.webhookEventId!];
    const settled = await Promise.allSettled(
      ids.map((webhookEventId) => batcher.submit({ projectId, webhookEventId })),
    );
    // A delivery that failed retries the message: those applied already are skipped when it comes back.
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    // The receiver stored the rows before publishing: a missing one was deleted (its shop disconnected).
    const missing = ids.filter(
      (_, i) => (settled[i] as PromiseFulfilledResult<ProcessOutcome>).value === "missing",
    );
    if (missing.length)
      throw new PermanentError(
        `no stored ${topic} deliver${missing.length > 1 ? "ies" : "y"} ${missing.join(", ")}`,
      );
  };
}

/** One consumer per topic queue (spec 4.9: each topic goes to its own processing queue). */
export function shopConsumers(deps: Deps) {
  return [
    defineConsumer(Queues.shopIngestCartUpdate, {
      [RoutingKeys.shopCartUpdate]: handler(deps, "cart/update"),
    }),
    defineConsumer(Queues.shopIngestCheckoutCreate, {
      [RoutingKeys.shopCheckoutCreate]: handler(deps, "checkout/create"),
    }),
    defineConsumer(Queues.shopIngestOrderCreate, {
      [RoutingKeys.shopOrderCreate]: handler(deps, "order/create"),
    }),
  ] as const;
}
