export { createBroker, type Broker, type BrokerOptions, type ConsumeOptions } from "./broker";
export type { MessageContext, MessageHandler } from "./consume";
export type { ConsumerHandle } from "./consumer-runner";
export { distinctDelays, retryDelayFor, declareTopology } from "./declare-topology";
export { ATTEMPT_HEADER, decodeEnvelope } from "./codec";
export {
  BrokerClosedError,
  BrokerUnavailableError,
  DeferredError,
  InvalidPayloadError,
  PermanentError,
  PublishTimeoutError,
  RetryableError,
  RpcNoRouteError,
  RpcRemoteError,
  RpcTimeoutError,
  UnknownMessageTypeError,
} from "./errors";
export { silentLogger, type MessagingLogger } from "./logger";
export {
  startOutboxRelay,
  type OutboxRecord,
  type OutboxRelay,
  type OutboxRelayOptions,
  type OutboxStore,
} from "./outbox-relay";
export {
  defineConsumer,
  type QueueConsumer,
  type QueueHandlers,
  type TypedEnvelope,
  type TypedHandler,
} from "./queue-consumer";
export type { PublishOptions, PublishRequest } from "./publisher";
export type { RpcCallOptions } from "./rpc-client";
export type { RpcHandler } from "./rpc-server";
export type { ParkReason } from "./settle";
