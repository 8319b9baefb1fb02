import {
  handledPayloadSchema,
  type ConsumerQueue,
  type Envelope,
  type HandledType,
  type MessagePayload,
  type MessageType,
} from "@emailsvc/contracts";
import { summarize } from "./codec";
import type { MessageContext } from "./consume";
import { InvalidPayloadError, UnknownMessageTypeError } from "./errors";

/** An envelope of type `K`, its payload parsed with `K`'s catalogue schema. */
export type TypedEnvelope<K extends MessageType> = Envelope<MessagePayload<K>> & { type: K };

/** Returns normally to ack; throws `RetryableError`/any error to retry later, `PermanentError` to park. */
export type TypedHandler<K extends MessageType> = (
  envelope: TypedEnvelope<K>,
  ctx: MessageContext,
) => Promise<void> | void;

/** One handler for every type the queue's catalogue entry lists: a missing one does not compile. */
export type QueueHandlers<Q extends ConsumerQueue> = { readonly [K in HandledType<Q>]: TypedHandler<K> };

export interface QueueConsumer<Q extends ConsumerQueue = ConsumerQueue> {
  readonly queue: Q;
  readonly handlers: QueueHandlers<Q>;
  /**
   * What the broker runs for each delivery of the queue: picks the handler of `envelope.type`, parses the payload
   * with its catalogue schema and calls it. Throws `UnknownMessageTypeError` (parked as `unknown-type`) for a type
   * the queue does not handle and `InvalidPayloadError` (parked as `invalid-envelope`) for a payload its schema
   * refuses. Tests call it directly to run a consumer without a broker.
   */
  handle(envelope: Envelope, ctx: MessageContext): Promise<void>;
}

/**
 * A consumer of a catalogue queue: one handler per routing key the catalogue lists for it, each typed from that
 * key's payload schema. Register it with `broker.consume(consumer, opts)`.
 */
export function defineConsumer<Q extends ConsumerQueue>(
  queue: Q,
  handlers: QueueHandlers<Q>,
): QueueConsumer<Q> {
  const byType = handlers as unknown as Partial<Record<string, TypedHandler<MessageType>>>;
  return {
    queue,
    handlers,
    async handle(envelope, ctx) {
      const schema = handledPayloadSchema(queue, envelope.type);
      const handler = Object.hasOwn(byType, envelope.type) ? byType[envelope.type] : undefined;
      if (!schema || !handler) throw new UnknownMessageTypeError(queue, envelope.type);
      const payload = schema.safeParse(envelope.payload);
      if (!payload.success)
        throw new InvalidPayloadError(`invalid ${envelope.type} payload: ${summarize(payload.error.issues)}`);
      await handler({ ...envelope, payload: payload.data } as TypedEnvelope<MessageType>, ctx);
    },
  };
}
