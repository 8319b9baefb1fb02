import type { Broker } from "@emailsvc/messaging";
import type { Db } from "@emailsvc/db";
import type { Logger, Metrics } from "@emailsvc/observability";
import type { TemplateCache } from "@emailsvc/sending";
import { startAbandonedCartLoop } from "../abandoned-cart/abandoned-cart-loop";
import type { Env } from "../env";
import { shopConsumers } from "./shop.consumers";

/**
 * The processing half of shop-ingest: the three topic consumers and the abandoned-cart loop. main.ts runs it in a
 * worker thread of its own (`SHOP_PROCESSING=thread`, `processing-worker.ts`) or beside the receiver (`inline`).
 * Returns the function that stops it, awaiting the batches and the tick in flight.
 */
export async function startProcessing(
  deps: {
    db: Db;
    broker: Broker;
    logger: Logger;
    metrics?: Pick<Metrics, "counter">;
    templateCache: TemplateCache;
    kickOutbox: () => void;
  },
  env: Env,
): Promise<() => Promise<void>> {
  const [cart, checkout, order] = shopConsumers({
    db: deps.db,
    logger: deps.logger,
    stepUnitSeconds: env.SHOP_STEP_UNIT_SECONDS,
    batch: env.SHOP_BATCH,
  });
  const consumers = [
    await deps.broker.consume(cart, { prefetch: env.SHOP_PREFETCH }),
    await deps.broker.consume(checkout, { prefetch: env.SHOP_PREFETCH }),
    await deps.broker.consume(order, { prefetch: env.SHOP_PREFETCH }),
  ];
  const timers = startAbandonedCartLoop({
    db: deps.db,
    templateCache: deps.templateCache,
    logger: deps.logger,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    intervalMs: env.SHOP_TIMER_INTERVAL_MS,
    batch: env.SHOP_TIMER_BATCH,
    claimSeconds: env.SHOP_STEP_CLAIM_SECONDS,
    unitSeconds: env.SHOP_STEP_UNIT_SECONDS,
    onSent: deps.kickOutbox,
  });
  return async () => {
    for (const c of consumers) await c.close();
    await timers.stop();
  };
}
