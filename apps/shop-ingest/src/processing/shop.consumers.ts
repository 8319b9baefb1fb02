import { Queues, RoutingKeys, type ShopTopic } from "@emailsvc/contracts";
import type { Db } from "@emailsvc/db";
import { defineConsumer, PermanentError } from "@emailsvc/messaging";
import type { Logger } from "@emailsvc/observability";
import { processShopWebhook } from "./process-shop-webhook";

type Deps = { db: Db; logger: Logger; stepUnitSeconds: number };

function handler(deps: Deps, topic: ShopTopic) {
  return async (envelope: { projectId: string | null; payload: { webhookEventId: string } }) => {
    if (!envelope.projectId) throw new PermanentError(`a ${topic} delivery without its project`);
    const outcome = await processShopWebhook(
      deps,
      envelope.projectId,
      envelope.payload.webhookEventId,
      topic,
    );
    // The receiver stored the row before publishing: a missing one was deleted (its shop disconnected).
    if (outcome === "missing")
      throw new PermanentError(`no stored ${topic} delivery ${envelope.payload.webhookEventId}`);
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
