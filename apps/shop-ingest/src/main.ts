import { runService } from "@emailsvc/runtime";
import { startAbandonedCartLoop } from "./abandoned-cart/abandoned-cart-loop";
import { createApp } from "./app";
import { createDeps } from "./deps";
import { readEnv } from "./env";
import { shopConsumers } from "./processing/shop.consumers";

runService({
  readEnv,
  createDeps,
  createApp,
  startWork: async (deps, env) => {
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
      metrics: deps.metrics,
      intervalMs: env.SHOP_TIMER_INTERVAL_MS,
      batch: env.SHOP_TIMER_BATCH,
      claimSeconds: env.SHOP_STEP_CLAIM_SECONDS,
      unitSeconds: env.SHOP_STEP_UNIT_SECONDS,
      onSent: () => deps.outbox.kick(),
    });
    return async () => {
      for (const c of consumers) await c.close();
      await timers.stop();
      await deps.outbox.stop();
      await deps.receiverDb.close();
    };
  },
});
