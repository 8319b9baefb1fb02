import { consumerCatalogue, handledPayloadSchema } from "./catalogue";
import { Queues, RoutingKeys } from "./names";
import { emailEventPayload, messageSchemas, SEND_REQUESTED_MAX_IDS, sendRequestedPayloads } from "./payloads";
import { messagingTopology } from "./topology";

// Queue names and bindings are persistent state on running brokers: this list changes only with a migration plan.
test("the topology derived from the catalogue declares the same queues and bindings as before", () => {
  expect(
    messagingTopology.queues.map((q) => [q.name, q.bindings.map((b) => `${b.exchange} ${b.pattern}`)]),
  ).toEqual([
    ["send-worker.send", ["email.commands email.send-requested"]],
    ["send-worker.bulk", ["email.commands email.bulk-send-requested"]],
    ["send-worker.rpc", ["email.commands email.send-rpc"]],
    ["notification-ingest.notifications", ["provider.notifications provider.notification"]],
    ["inbound-mail.notifications", ["provider.notifications provider.inbound-received"]],
    ["webhook-dispatcher.events", ["email.events email.#"]],
    ["shop-ingest.cart-update", ["shop.webhooks shop.cart.update"]],
    ["shop-ingest.checkout-create", ["shop.webhooks shop.checkout.create"]],
    ["shop-ingest.order-create", ["shop.webhooks shop.order.create"]],
    ["scheduler.jobs", ["jobs job.import-requested"]],
    ["campaign-dispatcher.commands", ["jobs campaign.trigger-requested"]],
  ]);
  expect(messagingTopology.queues.find((q) => q.name === Queues.sendWorkerRpc)).toMatchObject({
    retry: null,
    messageTtlMs: 30_000,
  });
});

/** Topic-exchange match: `*` is one word, `#` zero or more. */
function topicMatches(pattern: string, key: string): boolean {
  const match = (p: string[], k: string[]): boolean => {
    if (!p.length) return !k.length;
    const [head, ...rest] = p;
    if (head === "#") return match(rest, k) || (k.length > 0 && match(p, k.slice(1)));
    return k.length > 0 && (head === "*" || head === k[0]) && match(rest, k.slice(1));
  };
  return match(pattern.split("."), key.split("."));
}

test("every handled type reaches its queue through a binding, with the type's one payload schema", () => {
  for (const [queue, entry] of Object.entries(consumerCatalogue)) {
    for (const type of Object.keys(entry.handles)) {
      expect([queue, entry.bindings.some((b) => topicMatches(b.pattern, type))]).toEqual([queue, true]);
      expect(handledPayloadSchema(queue, type)).toBe(messageSchemas[type as keyof typeof messageSchemas]);
    }
  }
  expect(handledPayloadSchema(Queues.webhookDispatcherEvents, RoutingKeys.emailSent)).toBe(emailEventPayload);
  expect(
    handledPayloadSchema(Queues.webhookDispatcherEvents, RoutingKeys.emailSendRequested),
  ).toBeUndefined();
  expect(handledPayloadSchema("no.such.queue", RoutingKeys.emailSent)).toBeUndefined();
  expect(handledPayloadSchema(Queues.sendWorkerSend, "toString")).toBeUndefined();
});

test("send requests are split at the per-message limit, in order", () => {
  const ids = Array.from({ length: 2 * SEND_REQUESTED_MAX_IDS + 1 }, (_, i) => `a${i}`);
  const payloads = sendRequestedPayloads(ids);
  expect(payloads.map((p) => p.activityIds.length)).toEqual([
    SEND_REQUESTED_MAX_IDS,
    SEND_REQUESTED_MAX_IDS,
    1,
  ]);
  expect(payloads.flatMap((p) => p.activityIds)).toEqual(ids);
  expect(sendRequestedPayloads([])).toEqual([]);
  expect(sendRequestedPayloads(["x", "y", "z"], 2)).toEqual([
    { activityIds: ["x", "y"] },
    { activityIds: ["z"] },
  ]);
});
