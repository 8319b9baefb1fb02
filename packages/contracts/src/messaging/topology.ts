import { consumerCatalogue } from "./catalogue";
import { Exchanges, type ExchangeName } from "./names";

/** How a queue's failed messages come back: attempt k (1-based) that fails waits `delaysMs[min(k-1, last)]`. */
export interface RetryPolicy {
  /** Delay before each retry, in ms; the last one repeats if `maxAttempts` outruns the list. */
  delaysMs: readonly number[];
  /** Total handler runs, first included; a message failing run `maxAttempts` is parked. */
  maxAttempts: number;
  /**
   * Waits before a message its handler deferred (`DeferredError`: it cannot be taken now, e.g. its tenant has too
   * much in flight) runs again: the n-th deferral of a message waits `deferMs[min(n-1, last)]`, so a long-deferred
   * backlog comes round less and less often. A deferral is not an attempt and never parks the message. Unset or
   * empty: not deferrable.
   */
  deferMs?: readonly number[];
}

export interface ExchangeDef {
  name: string;
  type: "topic";
}

export interface QueueBinding {
  exchange: string;
  /** Topic pattern (`email.#`) or exact routing key. */
  pattern: string;
}

export interface QueueDef {
  name: string;
  bindings: readonly QueueBinding[];
  /** null: no retry or parking queues (failures are answered or dropped, see the messaging README). */
  retry: RetryPolicy | null;
  /** Queue-level TTL (ms) for messages nobody should act on once stale (RPC requests). */
  messageTtlMs?: number;
}

export interface Topology {
  exchanges: readonly ExchangeDef[];
  queues: readonly QueueDef[];
}

const topic = (name: ExchangeName): ExchangeDef => ({ name, type: "topic" });

/**
 * The platform's whole topology, declared by every broker connection on (re)connect: the exchanges, and one queue
 * per entry of the consumer catalogue (catalogue.ts), which holds the bindings and retry policies.
 */
export const messagingTopology: Topology = {
  exchanges: [
    topic(Exchanges.emailCommands),
    topic(Exchanges.emailEvents),
    topic(Exchanges.providerNotifications),
    topic(Exchanges.shopWebhooks),
    topic(Exchanges.jobs),
  ],
  queues: Object.entries(consumerCatalogue).map(([name, entry]): QueueDef => {
    const def: QueueDef = { name, bindings: entry.bindings, retry: entry.retry };
    if ("messageTtlMs" in entry) def.messageTtlMs = entry.messageTtlMs;
    return def;
  }),
};

/** The queue definition for `name`, or undefined when the topology does not declare it. */
export function findQueueDef(topology: Topology, name: string): QueueDef | undefined {
  return topology.queues.find((q) => q.name === name);
}
