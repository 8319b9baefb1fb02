import type { IncomingMessage, ServerResponse } from "node:http";
import { createBatcher, type Db, recordShopWebhooks } from "@emailsvc/db";
import { fastRoute } from "@emailsvc/http";
import type { Counter, Logger, Metrics } from "@emailsvc/observability";
import { receiveShopWebhook, type RecordShopWebhook, SHOP_WEBHOOK_PREFIX } from "./receive-shop-webhook";
import { createShopCache } from "./shop-cache";

/** The routes served ahead of Express (the route-coverage test declares them). */
export const SHOP_WEBHOOK_ROUTES = ["POST /webhooks/shop/:topic"];

/**
 * POST /webhooks/shop/* on plain node:http ahead of Express: the platform gives up after 5 s and retries, so the
 * receiver answers as fast as it can store (the raw body is read once, for the HMAC and the JSON alike).
 *
 * Group commit: the first delivery is stored at once, and those that arrive while `statementsInFlight` statements
 * run are stored together by the next one (each still answered for itself: stored or duplicate). One commit, one
 * WAL flush and one round trip then serve a whole burst instead of each delivery paying its own.
 */
export function shopWebhookFastPath(deps: {
  db: Db;
  encryptionKey: string;
  shopCacheMs: number;
  /** statements storing deliveries at once */
  statementsInFlight: number;
  kickOutbox: () => void;
  logger: Logger;
  metrics: Pick<Metrics, "httpDuration" | "counter" | "registry">;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const lookups = createShopCache(deps.db, deps.encryptionKey, deps.shopCacheMs);
  // one counter per registry, however many apps a test builds on one set of deps
  const unsigned =
    (deps.metrics.registry.getSingleMetric("shop_webhooks_unsigned_total") as
      Counter<"connected"> | undefined) ??
    deps.metrics.counter(
      "shop_webhooks_unsigned_total",
      "Shop webhooks accepted unsigned (the shop has no secret); connected=true: the delivery connected its domain",
      ["connected"],
    );
  const batcher = createBatcher<Parameters<RecordShopWebhook>[0], "stored" | "duplicate">({
    run: (rows) => recordShopWebhooks(deps.db, rows),
    maxBatch: 200,
    maxInFlight: deps.statementsInFlight,
  });
  const receive = {
    record: (row: Parameters<RecordShopWebhook>[0]) => batcher.submit(row),
    lookups,
    kickOutbox: deps.kickOutbox,
    onUnsigned: (connected: boolean) => unsigned.inc({ connected: String(connected) }),
  };
  return fastRoute({
    method: "POST",
    path: SHOP_WEBHOOK_PREFIX,
    prefix: true,
    logger: deps.logger,
    metrics: deps.metrics,
    handle: (r) => receiveShopWebhook(receive, r.req),
  });
}
