// Real: RabbitMQ (own vhost), the platform catalogue's queues and bindings. Faked: nothing; retry delays shortened.
import { randomUUID } from "node:crypto";
import {
  Exchanges,
  makeEnvelope,
  parkingQueueName,
  Queues,
  RoutingKeys,
  type Envelope,
  type MessageType,
  projectIdOf,
} from "@emailsvc/contracts";
import { defineConsumer, type Broker, type QueueHandlers, type TypedEnvelope } from "../src";
import { inspector, makeBroker, sleep, waitFor } from "./helpers";

const projectId = projectIdOf(randomUUID());
const queue = Queues.webhookDispatcherEvents;
const parking = parkingQueueName(queue);
let broker: Broker;
let look: Awaited<ReturnType<typeof inspector>>;

beforeAll(async () => {
  broker = makeBroker("typed-consumer");
  await broker.ready();
  look = await inspector();
  await look.purge(queue);
  await look.purge(parking);
});

afterAll(async () => {
  await broker?.close();
  await look?.close();
});

/** A consumer of the events queue recording which handler got what. */
function recordingConsumer() {
  const got: Array<{ handler: MessageType; envelope: TypedEnvelope<MessageType> }> = [];
  const record =
    <K extends MessageType>(handler: K) =>
    (envelope: TypedEnvelope<K>) =>
      void got.push({ handler, envelope: envelope as TypedEnvelope<MessageType> });
  const consumer = defineConsumer(queue, {
    [RoutingKeys.emailSent]: record(RoutingKeys.emailSent),
    [RoutingKeys.emailDelivered]: record(RoutingKeys.emailDelivered),
    // typed from the catalogue: `details` is the event payload's record, `isTest` its boolean
    [RoutingKeys.emailBounced]: (e) => {
      const details: Record<string, unknown> | undefined = e.payload.details;
      const isTest: boolean | undefined = e.payload.isTest;
      got.push({
        handler: RoutingKeys.emailBounced,
        envelope: { ...e, payload: { ...e.payload, details, isTest } },
      });
    },
    [RoutingKeys.emailComplained]: record(RoutingKeys.emailComplained),
    [RoutingKeys.emailOpened]: record(RoutingKeys.emailOpened),
    [RoutingKeys.emailClicked]: record(RoutingKeys.emailClicked),
    [RoutingKeys.emailRejected]: record(RoutingKeys.emailRejected),
    [RoutingKeys.emailDeliveryDelayed]: record(RoutingKeys.emailDeliveryDelayed),
    [RoutingKeys.emailFailed]: record(RoutingKeys.emailFailed),
    [RoutingKeys.emailInbound]: record(RoutingKeys.emailInbound),
  });
  return { consumer, got };
}

test("a valid payload reaches the handler of its routing key, parsed, and is acked", async () => {
  const { consumer, got } = recordingConsumer();
  const handle = await broker.consume(consumer, { prefetch: 5 });
  try {
    const bounced = makeEnvelope(
      RoutingKeys.emailBounced,
      { activityId: "a-1", projectId, isTest: true, details: { bounce: { type: "Permanent" } } },
      { projectId },
    );
    const failed = makeEnvelope(
      RoutingKeys.emailFailed,
      { activityId: "a-2", projectId, reason: "x" },
      { projectId },
    );
    await broker.publish(Exchanges.emailEvents, bounced.type, bounced);
    await broker.publish(Exchanges.emailEvents, failed.type, failed);
    await waitFor(() => got.length === 2, 5000, "both handled");
    const byHandler = Object.fromEntries(got.map((g) => [g.handler, g.envelope]));
    expect(Object.keys(byHandler).sort()).toEqual([RoutingKeys.emailBounced, RoutingKeys.emailFailed]);
    expect(byHandler[RoutingKeys.emailBounced]).toEqual(bounced);
    expect(byHandler[RoutingKeys.emailFailed]).toEqual(failed);
    await sleep(100);
    expect(await look.count(queue)).toBe(0);
    expect(await look.count(parking)).toBe(0);
  } finally {
    await handle.close();
  }
});

test("a payload its schema refuses is parked as invalid without reaching any handler", async () => {
  const { consumer, got } = recordingConsumer();
  const handle = await broker.consume(consumer, { prefetch: 5 });
  try {
    const good = makeEnvelope(RoutingKeys.emailDelivered, { activityId: "a-3", projectId }, { projectId });
    const bad = { ...good, payload: { activityId: "a-3", projectId: "not-a-uuid" } } as unknown as Envelope;
    await broker.publish(Exchanges.emailEvents, good.type, bad);
    const parked = await waitFor(() => look.get(parking), 5000, "parked");
    expect(parked.properties.headers?.["x-parked-reason"]).toBe("invalid-envelope");
    expect(String(parked.properties.headers?.["x-error"])).toContain("email.delivered payload: projectId");
    expect(JSON.parse(parked.content.toString()).id).toBe(good.id);
    expect(got).toEqual([]);
  } finally {
    await handle.close();
  }
});

test("a routing key the queue has no handler for is parked with the reason", async () => {
  const { consumer, got } = recordingConsumer();
  const handle = await broker.consume(consumer, { prefetch: 5 });
  try {
    // A known type, bound here by `email.#` but not in this queue's catalogue entry; and a type nobody knows.
    const stray = makeEnvelope(RoutingKeys.emailSendRequested, { activityIds: ["a-4"] }, { projectId });
    const unknown = {
      ...makeEnvelope(RoutingKeys.emailSent, { activityId: "a-5", projectId }, { projectId }),
    };
    const exploded = { ...unknown, type: "email.exploded" } as unknown as Envelope;
    await broker.publish(Exchanges.emailEvents, stray.type, stray);
    await broker.publish(Exchanges.emailEvents, "email.exploded", exploded);
    const first = await waitFor(() => look.get(parking), 5000, "first parked");
    const second = await waitFor(() => look.get(parking), 5000, "second parked");
    const byId = new Map([first, second].map((m) => [JSON.parse(m.content.toString()).id as string, m]));
    for (const [env, type] of [
      [stray, RoutingKeys.emailSendRequested],
      [exploded, "email.exploded"],
    ] as const) {
      const h = byId.get(env.id)?.properties.headers ?? {};
      expect(h["x-parked-reason"]).toBe("unknown-type");
      expect(h["x-error"]).toBe(`queue ${queue} has no handler for message type ${type}`);
      expect(h["x-attempt"]).toBe(1);
    }
    expect(got).toEqual([]);
  } finally {
    await handle.close();
  }
});

test("handle() runs the same routing without a broker", async () => {
  const { consumer, got } = recordingConsumer();
  const ctx = { attempt: 1, redelivered: false, headers: {}, routingKey: "x" };
  const opened = makeEnvelope(RoutingKeys.emailOpened, { activityId: "a-6", projectId }, { projectId });
  await consumer.handle(opened, ctx);
  expect(got).toEqual([{ handler: RoutingKeys.emailOpened, envelope: opened }]);
  await expect(consumer.handle({ ...opened, type: "email.exploded" }, ctx)).rejects.toThrow(
    "has no handler for message type email.exploded",
  );
  await expect(consumer.handle({ ...opened, payload: {} }, ctx)).rejects.toThrow(
    "invalid email.opened payload",
  );
});

test("a consumer must handle every routing key of its catalogue entry (checked by the compiler)", () => {
  const noop = () => undefined;
  const handlers: QueueHandlers<typeof Queues.sendWorkerSend> = { [RoutingKeys.emailSendRequested]: noop };
  expect(defineConsumer(Queues.sendWorkerSend, handlers).queue).toBe(Queues.sendWorkerSend);
  // @ts-expect-error the send queue's email.send-requested has no handler
  const missing: QueueHandlers<typeof Queues.sendWorkerSend> = {};
  // @ts-expect-error email.sent is not routed to the send queue
  const stray: QueueHandlers<typeof Queues.sendWorkerSend> = { ...handlers, [RoutingKeys.emailSent]: noop };
  expect([missing, stray]).toHaveLength(2);
});
