import type { z } from "zod";
import { EMAIL_EVENTS_PATTERN, Exchanges, Queues, RoutingKeys, type QueueName } from "./names";
import { messageSchemas, type MessagePayload, type MessageType } from "./payloads";
import type { QueueBinding, RetryPolicy } from "./topology";

/** What a work queue receives and what its consumer must handle. */
export interface ConsumerEntry {
  /** How messages reach the queue (declared on every connection). */
  bindings: readonly QueueBinding[];
  /** null: no retry or parking queues (failures are answered or dropped, see the messaging README). */
  retry: RetryPolicy | null;
  /** Queue-level TTL (ms) for messages nobody should act on once stale (RPC requests). */
  messageTtlMs?: number;
  /**
   * Every message type (= routing key) the queue's consumer handles, with the payload schema it is parsed with.
   * A consumer registers one handler for each (the compiler insists); any other type arriving is parked.
   */
  handles: { readonly [K in MessageType]?: (typeof messageSchemas)[K] };
}

/** The handled-types map of `types`, each with its catalogue payload schema (one schema per type, everywhere). */
function handles<const K extends readonly MessageType[]>(
  ...types: K
): { readonly [T in K[number]]: (typeof messageSchemas)[T] } {
  return Object.fromEntries(types.map((t) => [t, messageSchemas[t]])) as never;
}

/**
 * The consumer catalogue: queue → bindings, retry policy, handled routing keys → payload schema. The broker
 * topology (`messagingTopology`) is derived from it, and `@emailsvc/messaging` types each consumer's handlers from
 * it. A new routing key for a consumer is one entry here (plus its name and payload schema) and one handler.
 * Queue and exchange names are persistent state (see names.ts). Retry delays become queue names (see
 * `retryQueueName`), so editing them is safe; old retry queues can be deleted once empty.
 */
export const consumerCatalogue = {
  [Queues.sendWorkerSend]: {
    bindings: [{ exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailSendRequested }],
    // Provider throttling and outages last seconds to minutes.
    retry: { delaysMs: [5_000, 30_000, 120_000, 600_000], maxAttempts: 5 },
    handles: handles(RoutingKeys.emailSendRequested),
  },
  [Queues.sendWorkerBulk]: {
    bindings: [{ exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailBulkSendRequested }],
    retry: { delaysMs: [5_000, 30_000, 120_000, 600_000], maxAttempts: 5 },
    handles: handles(RoutingKeys.emailBulkSendRequested),
  },
  [Queues.sendWorkerRpc]: {
    bindings: [{ exchange: Exchanges.emailCommands, pattern: RoutingKeys.emailSendRpc }],
    // The HTTP caller waits at most a few seconds; a stale request must not be sent late, and errors are
    // answered to the caller rather than retried.
    retry: null,
    messageTtlMs: 30_000,
    handles: handles(RoutingKeys.emailSendRpc),
  },
  [Queues.notificationIngest]: {
    bindings: [{ exchange: Exchanges.providerNotifications, pattern: RoutingKeys.providerNotification }],
    retry: { delaysMs: [1_000, 10_000, 60_000, 300_000], maxAttempts: 6 },
    handles: handles(RoutingKeys.providerNotification),
  },
  [Queues.inboundMailNotifications]: {
    bindings: [{ exchange: Exchanges.providerNotifications, pattern: RoutingKeys.inboundReceived }],
    // S3 or the database away for a while; a message that cannot be parsed is recorded as failed, not retried.
    retry: { delaysMs: [1_000, 10_000, 60_000, 300_000], maxAttempts: 8 },
    handles: handles(RoutingKeys.inboundReceived),
  },
  [Queues.webhookDispatcherEvents]: {
    bindings: [{ exchange: Exchanges.emailEvents, pattern: EMAIL_EVENTS_PATTERN }],
    retry: { delaysMs: [5_000, 30_000, 300_000], maxAttempts: 5 },
    // Everything `email.#` routes here: the events that become client webhooks (email.inbound to the project's
    // inbound URLs), and email.failed, which the consumer acknowledges (it reaches clients by its own path).
    handles: handles(
      RoutingKeys.emailSent,
      RoutingKeys.emailDelivered,
      RoutingKeys.emailBounced,
      RoutingKeys.emailComplained,
      RoutingKeys.emailOpened,
      RoutingKeys.emailClicked,
      RoutingKeys.emailRejected,
      RoutingKeys.emailDeliveryDelayed,
      RoutingKeys.emailFailed,
      RoutingKeys.emailInbound,
    ),
  },
  [Queues.shopIngestCartUpdate]: {
    bindings: [{ exchange: Exchanges.shopWebhooks, pattern: RoutingKeys.shopCartUpdate }],
    retry: { delaysMs: [2_000, 20_000, 120_000], maxAttempts: 5 },
    handles: handles(RoutingKeys.shopCartUpdate),
  },
  [Queues.shopIngestCheckoutCreate]: {
    bindings: [{ exchange: Exchanges.shopWebhooks, pattern: RoutingKeys.shopCheckoutCreate }],
    retry: { delaysMs: [2_000, 20_000, 120_000], maxAttempts: 5 },
    handles: handles(RoutingKeys.shopCheckoutCreate),
  },
  [Queues.shopIngestOrderCreate]: {
    bindings: [{ exchange: Exchanges.shopWebhooks, pattern: RoutingKeys.shopOrderCreate }],
    retry: { delaysMs: [2_000, 20_000, 120_000], maxAttempts: 5 },
    handles: handles(RoutingKeys.shopOrderCreate),
  },
  [Queues.schedulerJobs]: {
    bindings: [{ exchange: Exchanges.jobs, pattern: RoutingKeys.jobImportRequested }],
    retry: { delaysMs: [10_000, 60_000, 300_000], maxAttempts: 4 },
    handles: handles(RoutingKeys.jobImportRequested),
  },
  [Queues.campaignDispatcherCommands]: {
    bindings: [{ exchange: Exchanges.jobs, pattern: RoutingKeys.campaignTriggerRequested }],
    retry: { delaysMs: [5_000, 60_000, 300_000], maxAttempts: 4 },
    handles: handles(RoutingKeys.campaignTriggerRequested),
  },
} as const satisfies Record<QueueName, ConsumerEntry>;

export type ConsumerCatalogue = typeof consumerCatalogue;
/** A queue with a catalogue entry (every work queue). */
export type ConsumerQueue = keyof ConsumerCatalogue;
/** The message types a consumer of `Q` handles. */
export type HandledType<Q extends ConsumerQueue> = keyof ConsumerCatalogue[Q]["handles"] & MessageType;
/** The payload of any message a consumer of `Q` handles. */
export type QueuePayload<Q extends ConsumerQueue> = MessagePayload<HandledType<Q>>;

/** The payload schema `queue`'s consumer parses a `type` message with, or undefined when it does not handle it. */
export function handledPayloadSchema(queue: string, type: string): z.ZodType | undefined {
  if (!Object.hasOwn(consumerCatalogue, queue)) return undefined;
  const handled: Partial<Record<string, z.ZodType>> = consumerCatalogue[queue as ConsumerQueue].handles;
  return Object.hasOwn(handled, type) ? handled[type] : undefined;
}
