import type { Channel } from "amqplib";
import {
  parkingQueueName,
  retryQueueName,
  type QueueDef,
  type RetryPolicy,
  type Topology,
} from "@emailsvc/contracts";

/** Work and parking queues are quorum queues: replicated, durable, with a delivery count. */
const QUORUM = { "x-queue-type": "quorum" } as const;

/** The distinct retry delays of a policy (and its deferral wait), in first-use order; one retry queue each. */
export function distinctDelays(policy: RetryPolicy): number[] {
  return [...new Set([...policy.delaysMs, ...(policy.deferMs ?? [])])];
}

/** Delay before re-running a message whose attempt `attempt` (1-based) just failed. */
export function retryDelayFor(policy: RetryPolicy, attempt: number): number {
  const { delaysMs } = policy;
  if (delaysMs.length === 0) throw new Error("retry policy has no delays");
  const index = Math.min(Math.max(attempt, 1) - 1, delaysMs.length - 1);
  return delaysMs[index] as number;
}

/**
 * Declares one work queue, its bindings, and (with a retry policy) its retry and parking queues. Every
 * declaration is idempotent, so this runs on every (re)connect: a broker that lost its definitions gets them
 * back before the first message is published or consumed.
 */
export async function declareQueue(ch: Channel, def: QueueDef): Promise<void> {
  const args: Record<string, unknown> = { ...QUORUM };
  if (def.messageTtlMs !== undefined) args["x-message-ttl"] = def.messageTtlMs;
  await ch.assertQueue(def.name, { durable: true, arguments: args });
  for (const b of def.bindings) await ch.bindQueue(def.name, b.exchange, b.pattern);
  if (!def.retry) return;
  for (const delay of distinctDelays(def.retry)) {
    // Classic durable queue with a per-queue TTL: every message in it has the same delay, so expiry at the head
    // is exact. On expiry it is dead-lettered through the default exchange to the work queue, and only to it
    // (re-publishing to the topic exchange would also re-deliver to every other bound queue).
    await ch.assertQueue(retryQueueName(def.name, delay), {
      durable: true,
      arguments: {
        "x-message-ttl": delay,
        "x-dead-letter-exchange": "",
        "x-dead-letter-routing-key": def.name,
      },
    });
  }
  await ch.assertQueue(parkingQueueName(def.name), { durable: true, arguments: { ...QUORUM } });
}

/** Declares the exchanges a queue binds to, then the queue (what one consumer needs). */
export async function declareQueueWithExchanges(
  ch: Channel,
  topology: Topology,
  def: QueueDef,
): Promise<void> {
  for (const b of def.bindings) {
    const ex = topology.exchanges.find((e) => e.name === b.exchange);
    await ch.assertExchange(b.exchange, ex?.type ?? "topic", { durable: true });
  }
  await declareQueue(ch, def);
}

/** Declares the whole topology: exchanges first, then every queue with its bindings. */
export async function declareTopology(ch: Channel, topology: Topology): Promise<void> {
  for (const ex of topology.exchanges) await ch.assertExchange(ex.name, ex.type, { durable: true });
  for (const q of topology.queues) await declareQueue(ch, q);
}
