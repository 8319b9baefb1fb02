import { connect } from "amqp-connection-manager";
import {
  findQueueDef,
  messagingTopology,
  type Envelope,
  type QueueDef,
  type Topology,
} from "@emailsvc/contracts";
import { decodeEnvelopeShape } from "./codec";
import { workQueueProcessor, type MessageHandler } from "./consume";
import { runConsumer, type ConsumerHandle, type DeliveryProcessor } from "./consumer-runner";
import { BrokerClosedError } from "./errors";
import { errorFields, silentLogger, type MessagingLogger } from "./logger";
import type { QueueConsumer } from "./queue-consumer";
import { createPublisher, type PublishOptions, type PublishRequest } from "./publisher";
import { createRpcClient, type RpcCallOptions, type RpcClient } from "./rpc-client";
import { rpcProcessor, type RpcHandler } from "./rpc-server";

export interface BrokerOptions {
  /** amqp://user:pass@host:port/vhost */
  url: string;
  /** Shown as the connection name in the management UI and `rabbitmqctl list_connections`. */
  name: string;
  logger?: MessagingLogger;
  /** Defaults to the platform catalogue; tests pass their own (short retry delays). */
  topology?: Topology;
  /** Heartbeat interval; a dead peer is noticed after about twice this. Default 10. */
  heartbeatSeconds?: number;
  /** Pause between reconnect attempts. Default 2. */
  reconnectSeconds?: number;
  /** Default bound on a publish waiting for its confirm (also while reconnecting). Default 30 000. */
  publishTimeoutMs?: number;
}

export interface ConsumeOptions {
  /** Unacked deliveries the broker hands this consumer at once. */
  prefetch: number;
  /** Handlers running at once; defaults to `prefetch`. */
  concurrency?: number;
}

export interface Broker {
  readonly name: string;
  /** Resolves once connected with the topology declared; rejects if declaring it fails or after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  /** Connected, and the topology declared on this connection. */
  isReady(): boolean;
  /** Persistent publish; resolves after the broker's confirm. */
  publish(exchange: string, routingKey: string, envelope: Envelope, opts?: PublishOptions): Promise<void>;
  /** Many publishes with pipelined confirms; resolves when all are confirmed, rejects if any is not. */
  publishMany(requests: readonly PublishRequest[]): Promise<void>;
  /**
   * Runs a typed consumer (`defineConsumer`) on its catalogue queue; resolves once subscribed, and resumes by
   * itself after a connection loss. Each delivery goes to the handler of its type with the payload parsed by the
   * type's catalogue schema; an invalid payload or a type the queue does not handle is parked.
   */
  consume(consumer: QueueConsumer, opts: ConsumeOptions): Promise<ConsumerHandle>;
  /**
   * The untyped form under `consume`: one handler for the whole queue, the payload validated against its type's
   * schema but typed by the caller. For this package's tests of the settle mechanics; services use `consume`.
   */
  consumeRaw<P = unknown>(
    queue: string,
    handler: MessageHandler<P>,
    opts: ConsumeOptions,
  ): Promise<ConsumerHandle>;
  /** Sends a request and waits for the reply payload; throws RpcTimeoutError, RpcRemoteError, RpcNoRouteError. */
  rpcCall<R = unknown>(
    exchange: string,
    routingKey: string,
    envelope: Envelope,
    opts: RpcCallOptions,
  ): Promise<R>;
  /** Answers requests arriving on a catalogue queue. */
  serveRpc<P = unknown, R = unknown>(
    queue: string,
    handler: RpcHandler<P, R>,
    opts?: Partial<ConsumeOptions>,
  ): Promise<ConsumerHandle>;
  /** Stops consumers taking work, waits for running handlers, closes publishers, consumers, then the connection. */
  close(): Promise<void>;
}

/** One AMQP connection (with automatic reconnection) and everything that runs on it. */
export function createBroker(opts: BrokerOptions): Broker {
  const logger = opts.logger ?? silentLogger;
  const topology = opts.topology ?? messagingTopology;
  const reconnectDelayMs = (opts.reconnectSeconds ?? 2) * 1000;
  const manager = connect([opts.url], {
    heartbeatIntervalInSeconds: opts.heartbeatSeconds ?? 10,
    reconnectTimeInSeconds: opts.reconnectSeconds ?? 2,
    connectionOptions: { clientProperties: { connection_name: opts.name } },
  });
  let closing = false;
  let topologyDeclared = false;
  const consumers = new Set<ConsumerHandle>();
  let rpcClient: RpcClient | undefined;

  let firstSetup!: { resolve: () => void; reject: (err: unknown) => void; settled: boolean };
  const firstSetupP = new Promise<void>((resolve, reject) => {
    firstSetup = { resolve, reject, settled: false };
  });
  firstSetupP.catch(() => undefined); // reported through ready()

  manager.on("connect", () => logger.info({ broker: opts.name }, "broker connected"));
  manager.on("disconnect", ({ err }: { err?: Error }) => {
    topologyDeclared = false;
    if (!closing)
      logger.warn(
        { broker: opts.name, ...errorFields(err ?? "closed") },
        "broker disconnected; reconnecting",
      );
  });
  manager.on("connectFailed", ({ err }: { err: Error }) =>
    logger.warn({ broker: opts.name, ...errorFields(err) }, "broker connection attempt failed"),
  );
  manager.on("blocked", ({ reason }: { reason: string }) =>
    logger.warn({ broker: opts.name, reason }, "broker blocked publishing"),
  );

  const publisher = createPublisher({
    manager,
    topology,
    logger,
    name: opts.name,
    publishTimeoutMs: opts.publishTimeoutMs ?? 30_000,
    reconnectDelayMs,
    onTopologyDeclared: () => {
      topologyDeclared = true;
      if (!firstSetup.settled) {
        firstSetup.settled = true;
        firstSetup.resolve();
      }
    },
    onTopologyFailed: (err) => {
      logger.error({ broker: opts.name, ...errorFields(err) }, "declaring the topology failed");
      if (!firstSetup.settled) {
        firstSetup.settled = true;
        firstSetup.reject(err);
      }
    },
  });

  const queueDef = (name: string): QueueDef => {
    const def = findQueueDef(topology, name);
    if (!def) throw new Error(`queue ${name} is not in the topology`);
    return def;
  };

  const startConsumer = async (
    queue: string,
    process: DeliveryProcessor,
    o: ConsumeOptions,
    kind: string,
  ) => {
    if (closing) throw new BrokerClosedError("broker closed");
    const prefetch = o.prefetch;
    const handle = await runConsumer({
      manager,
      topology,
      queue: queueDef(queue),
      prefetch,
      concurrency: o.concurrency ?? prefetch,
      logger,
      channelName: `${opts.name}:${kind}:${queue}`,
      reconnectDelayMs,
      process,
    });
    consumers.add(handle);
    const close = handle.close;
    return { ...handle, close: () => close().finally(() => consumers.delete(handle)) };
  };

  return {
    name: opts.name,
    ready(timeoutMs = 30_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`broker ${opts.name} not ready within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      return Promise.race([firstSetupP, timeout]).finally(() => clearTimeout(timer));
    },
    isReady: () => !closing && manager.isConnected() && topologyDeclared,
    publish: (exchange, routingKey, envelope, o) => publisher.publish(exchange, routingKey, envelope, o),
    publishMany: (requests) => publisher.publishMany(requests),
    consume(consumer, o) {
      const def = queueDef(consumer.queue);
      const process = workQueueProcessor(def, consumer.handle, logger, decodeEnvelopeShape);
      return startConsumer(consumer.queue, process, o, "consumer");
    },
    consumeRaw(queue, handler, o) {
      return startConsumer(queue, workQueueProcessor(queueDef(queue), handler, logger), o, "consumer");
    },
    serveRpc(queue, handler, o) {
      const prefetch = o?.prefetch ?? 10;
      const options: ConsumeOptions = { prefetch, concurrency: o?.concurrency ?? prefetch };
      return startConsumer(queue, rpcProcessor(queueDef(queue), handler, logger), options, "rpc-server");
    },
    rpcCall(exchange, routingKey, envelope, o) {
      if (closing) return Promise.reject(new BrokerClosedError("broker closed"));
      rpcClient ??= createRpcClient({ manager, logger, name: opts.name, reconnectDelayMs });
      return rpcClient.call(exchange, routingKey, envelope, o);
    },
    async close() {
      if (closing) return;
      closing = true;
      const all = [...consumers];
      // Handlers may still publish, so: stop deliveries, let running handlers finish, and only then close the
      // publisher (which waits for outstanding confirms), the consumer channels and the connection.
      await Promise.all(all.map((c) => c.stopReceiving()));
      await Promise.all(all.map((c) => c.drain()));
      await publisher.close();
      await rpcClient?.close();
      await Promise.all(all.map((c) => c.close()));
      await manager.close();
      logger.info({ broker: opts.name }, "broker closed");
    },
  };
}
