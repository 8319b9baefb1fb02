import { randomUUID } from "node:crypto";
import type { AmqpConnectionManager, ChannelWrapper } from "amqp-connection-manager";
import type { Channel, ConsumeMessage, Message } from "amqplib";
import type { Envelope } from "@emailsvc/contracts";
import { guardChannel } from "./channel-guard";
import { encodeEnvelope, envelopeProperties } from "./codec";
import {
  BrokerClosedError,
  BrokerUnavailableError,
  RpcNoRouteError,
  RpcRemoteError,
  RpcTimeoutError,
} from "./errors";
import { errorFields, type MessagingLogger } from "./logger";
import { DIRECT_REPLY_TO, decodeReply } from "./rpc-protocol";

export interface RpcCallOptions {
  /** Total wait for the reply, including time spent waiting for a connection. */
  timeoutMs: number;
  headers?: Record<string, unknown>;
}

interface Pending {
  resolve: (payload: unknown) => void;
  reject: (err: Error) => void;
}

export interface RpcClient {
  call<R>(exchange: string, routingKey: string, envelope: Envelope, opts: RpcCallOptions): Promise<R>;
  close(): Promise<void>;
}

/**
 * RPC caller over direct reply-to. Requests and the reply subscription share one channel (RabbitMQ requires
 * it); the subscription is in the channel's setup, so it comes first on every (re)connect. Requests carry
 * `expiration = timeoutMs`, so one the caller gave up on is dropped from the queue instead of being acted on.
 * Calls in flight when the connection drops get no reply (it went to the old channel) and time out.
 */
export function createRpcClient(deps: {
  manager: AmqpConnectionManager;
  logger: MessagingLogger;
  name: string;
  reconnectDelayMs: number;
}): RpcClient {
  const { logger } = deps;
  const pending = new Map<string, Pending>();
  let closed = false;

  const onReply = (msg: ConsumeMessage | null): void => {
    if (!msg) return;
    const id = msg.properties.correlationId as string | undefined;
    const call = id ? pending.get(id) : undefined;
    if (!call) {
      logger.debug({ correlationId: id }, "RPC reply after the caller gave up; ignored");
      return;
    }
    try {
      const reply = decodeReply(msg.content);
      if (reply.ok) call.resolve(reply.payload);
      else call.reject(new RpcRemoteError(reply.error.message, reply.error.name));
    } catch (err) {
      call.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };

  const wrapper: ChannelWrapper = deps.manager.createChannel({
    name: `${deps.name}:rpc-client`,
    // Plain channel: a lost request shows up as a timeout anyway, and replies are not confirmed.
    confirm: false,
    setup: async (ch: Channel) => {
      guardChannel(ch, `${deps.name}:rpc-client`, { ...deps, isClosing: () => closed });
      ch.on("return", (msg: Message) => {
        const call = pending.get(msg.properties.correlationId as string);
        call?.reject(new RpcNoRouteError(msg.fields.routingKey));
      });
      await ch.consume(DIRECT_REPLY_TO, onReply, { noAck: true });
    },
  });
  wrapper.on("error", (err: Error) => logger.error(errorFields(err), "RPC client channel setup failed"));

  return {
    call<R>(exchange: string, routingKey: string, envelope: Envelope, opts: RpcCallOptions): Promise<R> {
      if (closed) return Promise.reject(new BrokerClosedError("broker closed"));
      // Disconnected: the request would only wait in the channel's buffer until the caller's deadline, and the
      // caller would report a timeout of a worker that was never asked.
      if (!deps.manager.isConnected())
        return Promise.reject(new BrokerUnavailableError("the message broker is unreachable"));
      const correlationId = randomUUID();
      return new Promise<R>((resolve, reject) => {
        const finish = (): void => {
          clearTimeout(timer);
          pending.delete(correlationId);
        };
        const timer = setTimeout(() => {
          finish();
          reject(new RpcTimeoutError(routingKey, opts.timeoutMs));
        }, opts.timeoutMs);
        pending.set(correlationId, {
          resolve: (payload) => {
            finish();
            resolve(payload as R);
          },
          reject: (err) => {
            finish();
            reject(err);
          },
        });
        const props = envelopeProperties(envelope, opts.headers);
        wrapper
          .publish(exchange, routingKey, encodeEnvelope(envelope), {
            ...props,
            // The request is worthless once the caller stops waiting: no need to write it to disk.
            persistent: false,
            correlationId,
            replyTo: DIRECT_REPLY_TO,
            expiration: String(opts.timeoutMs),
            mandatory: true,
            timeout: opts.timeoutMs,
          })
          .catch((err: unknown) => {
            // The timer above reports timeouts; anything else (channel closed by close()) is the answer.
            if (err instanceof Error && err.message === "timeout") return;
            pending.get(correlationId)?.reject(err instanceof Error ? err : new Error(String(err)));
          });
      });
    },
    async close() {
      closed = true;
      for (const call of [...pending.values()]) call.reject(new BrokerClosedError("broker closed"));
      await wrapper.close().catch(() => undefined);
    },
  };
}
