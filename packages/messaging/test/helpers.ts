import { execFileSync } from "node:child_process";
import { messagingTopology, type Topology } from "@emailsvc/contracts";
import { connect, type ChannelModel, type GetMessage } from "amqplib";
import { createBroker, type Broker, type BrokerOptions } from "../src";

/** Real RabbitMQ vhost prepared by the jest global setup (or by hand with TEST_INFRA=none). */
export function rabbitUrl(): string {
  const url = process.env.RABBITMQ_URL;
  if (!url) throw new Error("RABBITMQ_URL is not set (run through the jest preset or set it by hand)");
  return url;
}

export function vhost(): string {
  return process.env.TEST_RABBITMQ_VHOST ?? decodeURIComponent(new URL(rabbitUrl()).pathname.slice(1));
}

/** Test retry policy: short enough for a test, long enough to measure. */
export const TEST_RETRY = { delaysMs: [300], maxAttempts: 3 } as const;

/** The real catalogue (names, bindings, queue types) with every retry policy shortened. */
export const testTopology: Topology = {
  exchanges: messagingTopology.exchanges,
  queues: messagingTopology.queues.map((q) => (q.retry ? { ...q, retry: TEST_RETRY } : q)),
};

export function makeBroker(name: string, extra: Partial<BrokerOptions> = {}): Broker {
  return createBroker({ url: rabbitUrl(), name, topology: testTopology, reconnectSeconds: 0.3, ...extra });
}

/** A plain amqplib connection to look at queues the way an operator would. */
export async function inspector(): Promise<{
  get(queue: string): Promise<GetMessage | false>;
  count(queue: string): Promise<number>;
  purge(queue: string): Promise<void>;
  close(): Promise<void>;
}> {
  const conn: ChannelModel = await connect(rabbitUrl());
  conn.on("error", () => undefined); // closed under us by the reconnection test
  const ch = await conn.createChannel();
  return {
    async get(queue) {
      const m = await ch.get(queue, { noAck: true });
      return m;
    },
    async count(queue) {
      return (await ch.checkQueue(queue)).messageCount;
    },
    async purge(queue) {
      await ch.purgeQueue(queue);
    },
    close: () => conn.close().catch(() => undefined),
  };
}

export function rabbitctl(...args: string[]): string {
  return execFileSync("rabbitmqctl", ["-q", ...args], { encoding: "utf8" });
}

export { sleep, waitFor } from "@emailsvc/testing";
