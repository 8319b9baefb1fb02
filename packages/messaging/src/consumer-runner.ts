import type { AmqpConnectionManager, ChannelWrapper } from "amqp-connection-manager";
import type { ConfirmChannel, ConsumeMessage } from "amqplib";
import type { QueueDef, Topology } from "@emailsvc/contracts";
import { guardChannel } from "./channel-guard";
import { declareQueueWithExchanges } from "./declare-topology";
import { createLimiter } from "./limiter";
import { errorFields, type MessagingLogger } from "./logger";

/** Settles one delivery (ack, or republish then ack) on the channel it arrived on. Must not throw. */
export type DeliveryProcessor = (ch: ConfirmChannel, msg: ConsumeMessage) => Promise<void>;

export interface RunnerOptions {
  manager: AmqpConnectionManager;
  topology: Topology;
  queue: QueueDef;
  prefetch: number;
  concurrency: number;
  logger: MessagingLogger;
  channelName: string;
  reconnectDelayMs: number;
  process: DeliveryProcessor;
}

export interface ConsumerHandle {
  readonly queue: string;
  /** Stop taking deliveries (unstarted ones go back to the queue when the channel closes). */
  stopReceiving(): Promise<void>;
  /** Resolves when every started handler has finished and settled its message. */
  drain(): Promise<void>;
  /** stopReceiving, drain, then close the channel. */
  close(): Promise<void>;
}

/**
 * One consumer on its own confirm channel. The subscription lives in the channel's setup function, so after a
 * connection loss amqp-connection-manager re-declares the queue and subscribes again. Each delivery is settled
 * on the raw channel it came from: a delivery tag means nothing on the channel that replaces it.
 */
export async function runConsumer(opts: RunnerOptions): Promise<ConsumerHandle> {
  const { logger, queue } = opts;
  const limiter = createLimiter(opts.concurrency);
  const inflight = new Set<Promise<void>>();
  let stopping = false;
  let closed = false;
  let current: { ch: ConfirmChannel; consumerTag: string } | undefined;

  const deliver = async (ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> => {
    const release = await limiter.acquire();
    try {
      // Stopped while waiting for a slot: leave it unacked, the broker redelivers it to someone else.
      if (stopping) return;
      await opts.process(ch, msg);
    } catch (err) {
      logger.error({ ...errorFields(err), queue: queue.name }, "message processing failed unexpectedly");
    } finally {
      release();
    }
  };

  const subscribe = async (ch: ConfirmChannel): Promise<void> => {
    const { consumerTag } = await ch.consume(queue.name, (msg) => {
      if (!msg) {
        // The broker cancelled us (queue deleted or moved): declare it again and resubscribe.
        logger.warn({ queue: queue.name }, "consumer cancelled by broker; resubscribing");
        setTimeout(() => {
          if (stopping || current?.ch !== ch) return;
          declareQueueWithExchanges(ch, opts.topology, queue)
            .then(() => subscribe(ch))
            .catch((err) => logger.error({ ...errorFields(err), queue: queue.name }, "resubscribe failed"));
        }, opts.reconnectDelayMs).unref();
        return;
      }
      const p = deliver(ch, msg);
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    });
    current = { ch, consumerTag };
  };

  // Settles on the first setup: consume() resolves once subscribed, or rejects if the queue cannot be declared.
  let started!: { resolve: () => void; reject: (err: unknown) => void };
  const startedP = new Promise<void>((resolve, reject) => (started = { resolve, reject }));

  const wrapper: ChannelWrapper = opts.manager.createChannel({
    name: opts.channelName,
    confirm: true,
    setup: async (ch: ConfirmChannel) => {
      guardChannel(ch, opts.channelName, {
        manager: opts.manager,
        logger,
        isClosing: () => stopping,
        reconnectDelayMs: opts.reconnectDelayMs,
      });
      try {
        await declareQueueWithExchanges(ch, opts.topology, queue);
        await ch.prefetch(opts.prefetch);
        if (!stopping) await subscribe(ch);
        started.resolve();
      } catch (err) {
        started.reject(err);
        throw err;
      }
      logger.debug({ queue: queue.name }, "consuming");
    },
  });
  wrapper.on("error", (err: Error) =>
    logger.error({ ...errorFields(err), queue: queue.name }, "consumer channel setup failed"),
  );
  try {
    await startedP;
  } catch (err) {
    stopping = true;
    await wrapper.close().catch(() => undefined);
    throw err;
  }

  const stopReceiving = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const sub = current;
    if (!sub) return;
    try {
      await sub.ch.cancel(sub.consumerTag);
    } catch {
      // channel already gone: nothing is being delivered
    }
  };
  const drain = async (): Promise<void> => {
    while (inflight.size > 0) await Promise.allSettled([...inflight]);
  };

  return {
    queue: queue.name,
    stopReceiving,
    drain,
    async close() {
      if (closed) return;
      closed = true;
      await stopReceiving();
      await drain();
      await wrapper.close().catch(() => undefined);
    },
  };
}
