// Real: RabbitMQ (own vhost), direct reply-to. Faked: the send-worker's work (a handler returning a status).
import { randomUUID } from "node:crypto";
import {
  Exchanges,
  Queues,
  RoutingKeys,
  makeEnvelope,
  type EmailSendRpcReply,
  projectIdOf,
} from "@emailsvc/contracts";
import {
  BrokerUnavailableError,
  RpcNoRouteError,
  RpcRemoteError,
  RpcTimeoutError,
  type Broker,
  type ConsumerHandle,
} from "../src";
import { makeBroker } from "./helpers";

const projectId = projectIdOf(randomUUID());
let server: Broker;
let client: Broker;
let serving: ConsumerHandle | undefined;

beforeAll(async () => {
  server = makeBroker("test-rpc-server");
  client = makeBroker("test-rpc-client");
  await Promise.all([server.ready(), client.ready()]);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

const request = (activityId: string) => makeEnvelope(RoutingKeys.emailSendRpc, { activityId }, { projectId });

test("round trip: the caller gets the server's answer", async () => {
  serving = await server.serveRpc<{ activityId: string }, EmailSendRpcReply>(Queues.sendWorkerRpc, (env) => {
    if (env.payload.activityId === "boom") throw new Error("provider rejected the sender");
    return {
      activityId: env.payload.activityId,
      status: "sent",
      providerMessageId: `pm-${env.payload.activityId}`,
    };
  });
  const replies = await Promise.all(
    ["a1", "a2", "a3"].map((id) =>
      client.rpcCall<EmailSendRpcReply>(Exchanges.emailCommands, RoutingKeys.emailSendRpc, request(id), {
        timeoutMs: 3000,
      }),
    ),
  );
  expect(replies).toEqual(
    ["a1", "a2", "a3"].map((id) => ({ activityId: id, status: "sent", providerMessageId: `pm-${id}` })),
  );
});

test("a handler error comes back as RpcRemoteError", async () => {
  const call = client.rpcCall(Exchanges.emailCommands, RoutingKeys.emailSendRpc, request("boom"), {
    timeoutMs: 3000,
  });
  await expect(call).rejects.toBeInstanceOf(RpcRemoteError);
  await expect(call).rejects.toThrow("provider rejected the sender");
});

test("no answer within timeoutMs throws RpcTimeoutError, and the stale request expires unprocessed", async () => {
  await serving?.close();
  const started = Date.now();
  const call = client.rpcCall(Exchanges.emailCommands, RoutingKeys.emailSendRpc, request("late"), {
    timeoutMs: 400,
  });
  await expect(call).rejects.toBeInstanceOf(RpcTimeoutError);
  const elapsed = Date.now() - started;
  expect(elapsed).toBeGreaterThanOrEqual(400);
  expect(elapsed).toBeLessThan(2000);

  // A server that comes back later never sees the request the caller gave up on (per-message expiration).
  const handled: string[] = [];
  serving = await server.serveRpc<{ activityId: string }>(Queues.sendWorkerRpc, (env) => {
    handled.push(env.payload.activityId);
    return { activityId: env.payload.activityId, status: "sent" };
  });
  const fresh = await client.rpcCall<EmailSendRpcReply>(
    Exchanges.emailCommands,
    RoutingKeys.emailSendRpc,
    request("fresh"),
    {
      timeoutMs: 3000,
    },
  );
  expect(fresh.status).toBe("sent");
  expect(handled).toEqual(["fresh"]);
});

test("a routing key nobody serves fails fast with RpcNoRouteError", async () => {
  const started = Date.now();
  await expect(
    client.rpcCall(Exchanges.emailCommands, "email.nobody-listens", request("x"), { timeoutMs: 3000 }),
  ).rejects.toBeInstanceOf(RpcNoRouteError);
  expect(Date.now() - started).toBeLessThan(1000);
});

test("without a broker connection a call fails at once, not after its deadline", async () => {
  // Port 1 on loopback: nothing listens, as while RabbitMQ is down.
  const offline = makeBroker("test-rpc-offline", { url: "amqp://guest:guest@127.0.0.1:1" });
  try {
    const started = Date.now();
    await expect(
      offline.rpcCall(Exchanges.emailCommands, RoutingKeys.emailSendRpc, request("x"), { timeoutMs: 5000 }),
    ).rejects.toBeInstanceOf(BrokerUnavailableError);
    expect(Date.now() - started).toBeLessThan(1000);
  } finally {
    await offline.close();
  }
});
