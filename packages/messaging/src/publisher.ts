import type { AmqpConnectionManager, ChannelWrapper } from "amqp-connection-manager";
import type { ConfirmChannel } from "amqplib";
import type { Topology } from "@emailsvc/contracts";
import { guardChannel } from "./channel-guard";
import { encodeEnvelope, envelopeProperties } from "./codec";
import { declareTopology } from "./declare-topology";
import { BrokerClosedError, PublishTimeoutError } from "./errors";
import { errorFields, type MessagingLogger } from "./logger";

/** Messages encoded and written per event-loop turn by publishMany. */
const PUBLISH_SLICE = 100;

export interface PublishOptions {
  headers?: Record<string, unknown> | null;
  /** Overrides the broker's publish timeout (time to get a confirm, including time spent reconnecting). */
  timeoutMs?: number;
}

export interface PublishRequest extends PublishOptions {
  exchange: string;
  routingKey: string;
  /** Normally an `Envelope`; the outbox relay passes the stored JSON as-is (consumers park anything invalid). */
  envelope: unknown;
}

export interface Publisher {
  publish(exchange: string, routingKey: string, envelope: unknown, opts?: PublishOptions): Promise<void>;
  publishMany(requests: readonly PublishRequest[]): Promise<void>;
  close(): Promise<void>;
}

export interface PublisherDeps {
  manager: AmqpConnectionManager;
  topology: Topology;
  logger: MessagingLogger;
  name: string;
  publishTimeoutMs: number;
  reconnectDelayMs: number;
  /** Called after each successful topology declaration (once per connection). */
  onTopologyDeclared: () => void;
  onTopologyFailed: (err: unknown) => void;
}

/**
 * Persistent publishes on one confirm channel; each promise resolves on the broker's confirm. The channel's
 * setup declares the whole topology, so after every (re)connect nothing is published before every queue and
 * binding exists (a message to a topic exchange with no bound queue would be confirmed and silently lost).
 * While disconnected, publishes queue up in amqp-connection-manager and go out on reconnect, each bounded by
 * its timeout.
 */
export function createPublisher(deps: PublisherDeps): Publisher {
  const inflight = new Set<Promise<void>>();
  let closed = false;

  const wrapper: ChannelWrapper = deps.manager.createChannel({
    name: `${deps.name}:publisher`,
    confirm: true,
    setup: async (ch: ConfirmChannel) => {
      guardChannel(ch, `${deps.name}:publisher`, { ...deps, isClosing: () => closed });
      try {
        await declareTopology(ch, deps.topology);
      } catch (err) {
        deps.onTopologyFailed(err);
        throw err;
      }
      deps.onTopologyDeclared();
    },
  });
  wrapper.on("error", (err: Error) => deps.logger.error(errorFields(err), "publisher channel setup failed"));

  const publish = (
    exchange: string,
    routingKey: string,
    envelope: unknown,
    opts?: PublishOptions,
  ): Promise<void> => {
    if (closed) return Promise.reject(new BrokerClosedError("publisher closed"));
    const timeoutMs = opts?.timeoutMs ?? deps.publishTimeoutMs;
    const p = wrapper
      .publish(exchange, routingKey, encodeEnvelope(envelope), {
        ...envelopeProperties(envelope, opts?.headers),
        timeout: timeoutMs,
      })
      .then(
        () => undefined,
        (err: unknown) => {
          if (err instanceof Error && err.message === "timeout") {
            throw new PublishTimeoutError(`no confirm for ${exchange}/${routingKey} within ${timeoutMs} ms`);
          }
          throw err;
        },
      );
    inflight.add(p);
    void p.catch(() => undefined).finally(() => inflight.delete(p));
    return p;
  };

  return {
    publish,
    // All publishes go out before any confirm is awaited: confirms arrive pipelined (tens of thousands per
    // second instead of one round trip each). Encoding a message costs ~20 µs, so a relay batch of 500 held the
    // event loop for 10+ ms: after every PUBLISH_SLICE messages the loop gets a turn (HTTP requests, health
    // checks) before the next slice. Rejects if any message is not confirmed; callers that need to know which
    // ones (the outbox relay) treat the batch as unpublished and retry it whole.
    async publishMany(requests) {
      const pending: Promise<void>[] = [];
      for (let i = 0; i < requests.length; i++) {
        if (i > 0 && i % PUBLISH_SLICE === 0) await new Promise<void>((r) => setImmediate(r));
        const r = requests[i]!;
        const p = publish(r.exchange, r.routingKey, r.envelope, r);
        p.catch(() => undefined); // settled below; not "unhandled" while the loop yields
        pending.push(p);
      }
      const results = await Promise.allSettled(pending);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed) throw failed.reason;
    },
    async close() {
      closed = true;
      // Let published messages get their confirms before the channel goes.
      await Promise.allSettled([...inflight]);
      await wrapper.close().catch(() => undefined);
    },
  };
}
