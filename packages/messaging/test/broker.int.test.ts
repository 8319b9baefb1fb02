// Real: RabbitMQ (own vhost). Faked: nothing; retry delays are shortened through the topology option.
import { randomUUID } from "node:crypto";
import {
  Exchanges,
  Queues,
  RoutingKeys,
  makeEnvelope,
  parkingQueueName,
  retryQueueName,
  type Envelope,
  projectIdOf,
} from "@emailsvc/contracts";
import { DeferredError, PermanentError, RetryableError, type Broker, type MessageContext } from "../src";
import { TEST_RETRY, inspector, makeBroker, rabbitctl, sleep, testTopology, vhost, waitFor } from "./helpers";

const projectId = projectIdOf(randomUUID());
let broker: Broker;
let look: Awaited<ReturnType<typeof inspector>>;

beforeAll(async () => {
  broker = makeBroker("test");
  await broker.ready();
  look = await inspector();
});

afterAll(async () => {
  await broker?.close();
  await look?.close();
});

test("declares quorum work queues, one TTL retry queue per delay, and a parking queue", async () => {
  expect(broker.isReady()).toBe(true);
  const listing = rabbitctl("list_queues", "-p", vhost(), "name", "type", "arguments");
  const line = (name: string) => listing.split("\n").find((l) => l.split("\t")[0] === name) ?? "";
  expect(line(Queues.sendWorkerSend)).toContain("quorum");
  expect(line(parkingQueueName(Queues.sendWorkerSend))).toContain("quorum");
  const retry = line(retryQueueName(Queues.sendWorkerSend, 300));
  expect(retry).toContain("x-message-ttl");
  expect(retry).toContain("300");
  expect(retry).toContain(Queues.sendWorkerSend);
  // RPC queue: no retry or parking queues.
  expect(line(parkingQueueName(Queues.sendWorkerRpc))).toBe("");
});

test("a confirmed publish is consumed with its envelope intact", async () => {
  const got: Array<[Envelope, MessageContext]> = [];
  const consumer = await broker.consumeRaw(Queues.sendWorkerSend, (e, ctx) => void got.push([e, ctx]), {
    prefetch: 5,
  });
  const env = makeEnvelope(RoutingKeys.emailSendRequested, { activityIds: ["a1", "a2"] }, { projectId });
  await broker.publish(Exchanges.emailCommands, RoutingKeys.emailSendRequested, env, {
    headers: { "x-test": "yes" },
  });
  const [received, ctx] = await waitFor(() => got[0], 5000, "delivery");
  expect(received).toEqual(env);
  expect(ctx.attempt).toBe(1);
  expect(ctx.redelivered).toBe(false);
  expect(ctx.headers["x-test"]).toBe("yes");
  await consumer.close();
  expect(await look.count(Queues.sendWorkerSend)).toBe(0);
});

test("publishMany pipelines confirms; email.# reaches the webhook dispatcher queue", async () => {
  const seen = new Set<string>();
  const consumer = await broker.consumeRaw(Queues.webhookDispatcherEvents, (e) => void seen.add(e.id), {
    prefetch: 50,
  });
  const types = [
    RoutingKeys.emailSent,
    RoutingKeys.emailDelivered,
    RoutingKeys.emailBounced,
    RoutingKeys.emailDeliveryDelayed,
  ] as const;
  const envs = Array.from({ length: 200 }, (_, i) => {
    const type = types[i % types.length]!;
    return makeEnvelope(type, { activityId: `act-${i}`, projectId }, { projectId });
  });
  await broker.publishMany(
    envs.map((e) => ({ exchange: Exchanges.emailEvents, routingKey: e.type, envelope: e })),
  );
  await waitFor(() => seen.size === envs.length, 10000, "all events");
  expect([...seen].sort()).toEqual(envs.map((e) => e.id).sort());
  await consumer.close();
});

test("publishMany lets the event loop in between slices of a large batch", async () => {
  let encoded = 0;
  const envs = Array.from({ length: 500 }, (_, i) => {
    const e = makeEnvelope(RoutingKeys.emailSent, { activityId: `slice-${i}`, projectId }, { projectId });
    return { ...e, toJSON: () => (encoded++, e) };
  });
  let encodedAtFirstTurn = -1;
  setImmediate(() => (encodedAtFirstTurn = encoded));
  await broker.publishMany(
    envs.map((e) => ({ exchange: Exchanges.emailEvents, routingKey: e.type, envelope: e })),
  );
  expect(encoded).toBe(500);
  expect(encodedAtFirstTurn).toBeGreaterThan(0);
  expect(encodedAtFirstTurn).toBeLessThan(500);
  await look.purge(Queues.webhookDispatcherEvents);
});

test("a handler failing once with a retryable error runs again after the retry delay", async () => {
  const runs: Array<{ at: number; attempt: number; lastError: unknown }> = [];
  const consumer = await broker.consumeRaw(
    Queues.notificationIngest,
    (_e, ctx) => {
      runs.push({ at: Date.now(), attempt: ctx.attempt, lastError: ctx.headers["x-last-error"] });
      if (ctx.attempt === 1) throw new RetryableError("provider throttled");
    },
    { prefetch: 1 },
  );
  const env = makeEnvelope(RoutingKeys.providerNotification, { notificationId: "n-1" }, { projectId: null });
  await broker.publish(Exchanges.providerNotifications, RoutingKeys.providerNotification, env);
  await waitFor(() => runs.length >= 2, 5000, "second attempt");
  await sleep(400); // no third run
  expect(runs.map((r) => r.attempt)).toEqual([1, 2]);
  expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(TEST_RETRY.delaysMs[0]);
  expect(runs[1]!.lastError).toBe("provider throttled");
  expect(await look.count(parkingQueueName(Queues.notificationIngest))).toBe(0);
  await consumer.close();
});

test("a message that always fails is parked after maxAttempts, with the attempt count and error", async () => {
  const attempts: number[] = [];
  const consumer = await broker.consumeRaw(
    Queues.schedulerJobs,
    (_e, ctx) => {
      attempts.push(ctx.attempt);
      throw new Error("database unavailable");
    },
    { prefetch: 1 },
  );
  const env = makeEnvelope(RoutingKeys.jobImportRequested, { importJobId: "job-1" }, { projectId });
  await broker.publish(Exchanges.jobs, RoutingKeys.jobImportRequested, env);
  const parking = parkingQueueName(Queues.schedulerJobs);
  const parked = await waitFor(() => look.get(parking), 5000, "parked message");
  expect(attempts).toEqual([1, 2, 3]);
  const h = parked.properties.headers ?? {};
  expect(h["x-attempt"]).toBe(TEST_RETRY.maxAttempts);
  expect(h["x-parked-reason"]).toBe("max-attempts");
  expect(h["x-error"]).toBe("database unavailable");
  expect(h["x-original-exchange"]).toBe(Exchanges.jobs);
  expect(h["x-original-routing-key"]).toBe(RoutingKeys.jobImportRequested);
  expect(JSON.parse(parked.content.toString()).id).toBe(env.id);
  await consumer.close();
});

test("a PermanentError parks at once", async () => {
  const attempts: number[] = [];
  const consumer = await broker.consumeRaw(
    Queues.shopIngestCheckoutCreate,
    (_e, ctx) => {
      attempts.push(ctx.attempt);
      throw new PermanentError("shop not connected");
    },
    { prefetch: 1 },
  );
  const env = makeEnvelope(RoutingKeys.shopCheckoutCreate, { webhookEventId: "w-1" }, { projectId });
  await broker.publish(Exchanges.shopWebhooks, RoutingKeys.shopCheckoutCreate, env);
  const parked = await waitFor(
    () => look.get(parkingQueueName(Queues.shopIngestCheckoutCreate)),
    5000,
    "parked",
  );
  expect(attempts).toEqual([1]);
  expect(parked.properties.headers?.["x-parked-reason"]).toBe("permanent-error");
  expect(parked.properties.headers?.["x-attempt"]).toBe(1);
  await consumer.close();
});

test("an invalid envelope or payload goes straight to parking without reaching the handler", async () => {
  let calls = 0;
  const consumer = await broker.consumeRaw(Queues.campaignDispatcherCommands, () => void calls++, {
    prefetch: 1,
  });
  const good = makeEnvelope(RoutingKeys.campaignTriggerRequested, { campaignId: "c-1" }, { projectId });
  const noProject = { ...good, id: randomUUID(), projectId: "not-a-uuid" } as unknown as Envelope;
  const badPayload = { ...good, id: randomUUID(), payload: { campaign: 1 } } as unknown as Envelope;
  await broker.publish(Exchanges.jobs, RoutingKeys.campaignTriggerRequested, noProject);
  await broker.publish(Exchanges.jobs, RoutingKeys.campaignTriggerRequested, badPayload);
  const parking = parkingQueueName(Queues.campaignDispatcherCommands);
  const first = await waitFor(() => look.get(parking), 5000, "first parked");
  const second = await waitFor(() => look.get(parking), 5000, "second parked");
  expect(calls).toBe(0);
  for (const m of [first, second]) {
    expect(m.properties.headers?.["x-parked-reason"]).toBe("invalid-envelope");
    expect(m.properties.headers?.["x-attempt"]).toBe(1);
  }
  expect(String(first.properties.headers?.["x-error"])).toContain("projectId");
  expect(String(second.properties.headers?.["x-error"])).toContain("campaign.trigger-requested payload");
  await consumer.close();
});

test("consumers and publishers carry on after the broker closes every connection", async () => {
  const seen = new Set<string>();
  const consumer = await broker.consumeRaw(Queues.shopIngestCartUpdate, (e) => void seen.add(e.id), {
    prefetch: 2,
  });
  const before = makeEnvelope(RoutingKeys.shopCartUpdate, { webhookEventId: "before" }, { projectId });
  await broker.publish(Exchanges.shopWebhooks, RoutingKeys.shopCartUpdate, before);
  await waitFor(() => seen.has(before.id), 5000, "message before the cut");

  rabbitctl("close_all_connections", "-p", vhost(), "test");
  await waitFor(() => !broker.isReady(), 5000, "disconnect noticed");
  await look.close();
  look = await inspector();
  // Published while disconnected: waits for the reconnection instead of failing.
  const after = makeEnvelope(RoutingKeys.shopCartUpdate, { webhookEventId: "after" }, { projectId });
  await broker.publish(Exchanges.shopWebhooks, RoutingKeys.shopCartUpdate, after, { timeoutMs: 10_000 });
  await waitFor(() => seen.has(after.id), 10_000, "message after the cut");
  expect(broker.isReady()).toBe(true);
  await consumer.close();
});

test("close() waits for a running handler to finish and ack", async () => {
  const b = makeBroker("test-close");
  await b.ready();
  let finished = false;
  let started = false;
  await b.consumeRaw(
    Queues.shopIngestOrderCreate,
    async () => {
      started = true;
      await sleep(300);
      finished = true;
    },
    { prefetch: 1 },
  );
  const env = makeEnvelope(RoutingKeys.shopOrderCreate, { webhookEventId: "slow" }, { projectId });
  await b.publish(Exchanges.shopWebhooks, RoutingKeys.shopOrderCreate, env);
  await waitFor(() => started, 5000, "handler start");
  await b.close();
  expect(finished).toBe(true);
  expect(b.isReady()).toBe(false);
  expect(await look.count(Queues.shopIngestOrderCreate)).toBe(0);
});

test("a deferred message comes back after its deferral wait, longer each time, its attempt number unchanged, never parked", async () => {
  const DEFER = [150, 300] as const;
  const deferring = makeBroker("defer-test", {
    topology: {
      ...testTopology,
      queues: testTopology.queues.map((q) =>
        q.name === Queues.campaignDispatcherCommands ? { ...q, retry: { ...TEST_RETRY, deferMs: DEFER } } : q,
      ),
    },
  });
  await deferring.ready();
  const runs: { at: number; attempt: number; deferrals: unknown }[] = [];
  const consumer = await deferring.consumeRaw(
    Queues.campaignDispatcherCommands,
    (_e, ctx) => {
      runs.push({ at: Date.now(), attempt: ctx.attempt, deferrals: ctx.headers["x-deferrals"] });
      // more deferrals than maxAttempts (3): none of them counts
      if (runs.length <= 4) throw new DeferredError("tenant busy");
      if (runs.length === 5) throw new RetryableError("now a real failure");
    },
    { prefetch: 1 },
  );
  const env = makeEnvelope(RoutingKeys.campaignTriggerRequested, { campaignId: "c-defer" }, { projectId });
  await deferring.publish(Exchanges.jobs, RoutingKeys.campaignTriggerRequested, env);
  await waitFor(() => runs.length >= 6, 8000, "six runs");
  await sleep(400);
  expect(runs.map((r) => r.attempt)).toEqual([1, 1, 1, 1, 1, 2]);
  // the retry after it ran starts the deferral count again
  expect(runs.map((r) => r.deferrals)).toEqual([undefined, 1, 2, 3, 4, undefined]);
  const gaps = runs.slice(1).map((r, i) => r.at - runs[i]!.at);
  // the first deferral waits 150 ms, every later one 300 ms (the last wait repeats); then the retry delay
  expect(gaps[0]).toBeGreaterThanOrEqual(DEFER[0] - 10);
  for (const g of gaps.slice(1, 4)) expect(g).toBeGreaterThanOrEqual(DEFER[1] - 10);
  expect(gaps[4]).toBeGreaterThanOrEqual(TEST_RETRY.delaysMs[0] - 10);
  expect(await look.count(parkingQueueName(Queues.campaignDispatcherCommands))).toBe(0);
  await consumer.close();
  await deferring.close();
});
