import { isAppError, PERMANENT_ERROR_CODES } from "@emailsvc/contracts";

/** Thrown by a handler for a failure worth retrying later (provider throttled, database busy). */
export class RetryableError extends Error {
  override name = "RetryableError";
}

/**
 * Thrown by a handler for a failure that no retry will fix (the referenced row is gone, the input is invalid).
 * The message goes straight to the parking queue.
 */
export class PermanentError extends Error {
  override name = "PermanentError";
}

/** A typed consumer got a message type its queue's catalogue entry does not list: parked as `unknown-type`. */
export class UnknownMessageTypeError extends PermanentError {
  override name = "UnknownMessageTypeError";
  constructor(
    readonly queue: string,
    readonly type: string,
  ) {
    super(`queue ${queue} has no handler for message type ${type}`);
  }
}

/** A payload its type's catalogue schema refuses: parked as `invalid-envelope`, the handler never runs. */
export class InvalidPayloadError extends PermanentError {
  override name = "InvalidPayloadError";
}

/**
 * Thrown by a handler that cannot take the message now but may later (its tenant already has its share in
 * flight). On a queue whose policy has `deferMs` the message comes back after that wait with the same attempt
 * number; elsewhere it is treated like any other error (a retry).
 */
export class DeferredError extends Error {
  override name = "DeferredError";
}

/** No reply arrived within `timeoutMs`; the request may still be processed by the server. */
export class RpcTimeoutError extends Error {
  override name = "RpcTimeoutError";
  constructor(
    readonly routingKey: string,
    readonly timeoutMs: number,
  ) {
    super(`RPC ${routingKey} got no reply within ${timeoutMs} ms`);
  }
}

/** No queue is bound for the RPC's routing key, so nobody could answer. */
export class RpcNoRouteError extends Error {
  override name = "RpcNoRouteError";
  constructor(readonly routingKey: string) {
    super(`RPC ${routingKey} was not routed to any queue`);
  }
}

/** The RPC server's handler threw; `remoteName` is the error's class name on the server. */
export class RpcRemoteError extends Error {
  override name = "RpcRemoteError";
  constructor(
    message: string,
    readonly remoteName: string,
  ) {
    super(message);
  }
}

/** The broker did not confirm a publish in time (e.g. still disconnected); the message may or may not be stored. */
export class PublishTimeoutError extends Error {
  override name = "PublishTimeoutError";
}

/** The broker (or the part asked for) was closed. */
export class BrokerClosedError extends Error {
  override name = "BrokerClosedError";
}

/** No connection to RabbitMQ right now: a call that needs one fails at once instead of waiting it out. */
export class BrokerUnavailableError extends Error {
  override name = "BrokerUnavailableError";
}

/**
 * A PermanentError, or an AppError whose code no retry can fix (invalid input, a row that is gone), parks the
 * message; everything else retries. Use cases shared with HTTP routes throw AppError and need not know.
 */
export function isPermanent(err: unknown): boolean {
  return err instanceof PermanentError || (isAppError(err) && PERMANENT_ERROR_CODES.has(err.code));
}
