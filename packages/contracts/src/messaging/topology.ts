import { EMAIL_EVENTS_PATTERN, Exchanges, Queues, RoutingKeys, type ExchangeName } from "./names";

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
 * The platform's whole topology, declared by every broker connection on (re)connect. Retry delays become queue
 * names (see `retryQueueName`), so editing them is safe; old retry queues can be deleted once empty.
 */
export const messagingTopology: Topology = {
  exchanges: [
    topic(Exchanges.emailCommands),
    topic(Exchanges.emailEvents),
    topic(Exchanges.providerNotifications),
    topic(Exchanges.shopWebhooks),
    topic(Exchanges.jobs),
  ],
  queues: [
    {
      name: Queues.sendWorkerSend,
      bindings: [{ exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailSendRequested }],
      // Provider throttling and outages last seconds to minutes.
      retry: { delaysMs: [5_000, 30_000, 120_000, 600_000], maxAttempts: 5 },
    },
    {
      name: Queues.sendWorkerRpc,
      bindings: [{ exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailSendRpc }],
      // The HTTP caller waits at most a few seconds; a stale request must not be sent late, and errors are
      // answered to the caller rather than retried.
      retry: null,
      messageTtlMs: 30_000,
    },
    {
      name: Queues.notificationIngest,
      bindings: [{ exchange: Exchanges.providerNotifications, pattern: RoutingKeys.providerNotification }],
      retry: { delaysMs: [1_000, 10_000, 60_000, 300_000], maxAttempts: 6 },
    },
    {
      name: Queues.webhookDispatcherEvents,
      bindings: [{ exchange: Exchanges.emailEvents, pattern: EMAIL_EVENTS_PATTERN }],
      retry: { delaysMs: [5_000, 30_000, 300_000], maxAttempts: 5 },
    },
    {
      name: Queues.shopIngestCartUpdate,
      bindings: [{ exchange: Exchanges.shopWebhooks, pattern: RoutingKeys.shopCartUpdate }],
      retry: { delaysMs: [2_000, 20_000, 120_000], maxAttempts: 5 },
    },
    {
      name: Queues.shopIngestCheckoutCreate,
      bindings: [{ exchange: Exchanges.shopWebhooks, pattern: RoutingKeys.shopCheckoutCreate }],
      retry: { delaysMs: [2_000, 20_000, 120_000], maxAttempts: 5 },
    },
    {
      name: Queues.shopIngestOrderCreate,
      bindings: [{ exchange: Exchanges.shopWebhooks, pattern: RoutingKeys.shopOrderCreate }],
      retry: { delaysMs: [2_000, 20_000, 120_000], maxAttempts: 5 },
    },
    {
      name: Queues.schedulerJobs,
      bindings: [{ exchange: Exchanges.jobs, pattern: RoutingKeys.jobImportRequested }],
      retry: { delaysMs: [10_000, 60_000, 300_000], maxAttempts: 4 },
    },
    {
      name: Queues.campaignDispatcherCommands,
      bindings: [{ exchange: Exchanges.jobs, pattern: RoutingKeys.campaignTriggerRequested }],
      retry: { delaysMs: [5_000, 60_000, 300_000], maxAttempts: 4 },
    },
  ],
};

/** The queue definition for `name`, or undefined when the topology does not declare it. */
export function findQueueDef(topology: Topology, name: string): QueueDef | undefined {
  return topology.queues.find((q) => q.name === name);
}
