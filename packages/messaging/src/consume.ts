import type { ConfirmChannel, ConsumeMessage, MessagePropertyHeaders } from "amqplib";
import type { Envelope, QueueDef } from "@emailsvc/contracts";
import { attemptOf, decodeEnvelope, type DecodeResult } from "./codec";
import { safeAck } from "./confirm";
import { DeferredError, InvalidPayloadError, isPermanent, UnknownMessageTypeError } from "./errors";
import { errorFields, type MessagingLogger } from "./logger";
import { deferLater, park, retryLater, type ParkReason } from "./settle";

export interface MessageContext {
  /** 1 on first delivery, +1 per delayed retry (not counting broker redeliveries after a crash). */
  attempt: number;
  /** The broker delivered it before without an ack (consumer died mid-handler): the handler must be idempotent. */
  redelivered: boolean;
  /** Raw AMQP headers (`x-attempt`, `x-last-error`, `x-original-routing-key`, producer headers). */
  headers: MessagePropertyHeaders;
  /** Routing key the delivery came with (the queue's name for retried copies; `envelope.type` is the original). */
  routingKey: string;
}

/** Returns normally to ack; throws `RetryableError`/any error to retry later, `PermanentError` to park. */
export type MessageHandler<P = unknown> = (
  envelope: Envelope<P>,
  ctx: MessageContext,
) => Promise<void> | void;

export function contextOf(msg: ConsumeMessage): MessageContext {
  return {
    attempt: attemptOf(msg),
    redelivered: msg.fields.redelivered,
    headers: msg.properties.headers ?? {},
    routingKey: msg.fields.routingKey,
  };
}

/**
 * Ends every delivery in exactly one of: ack; delayed retry (copy to the retry queue, then ack); parking (copy
 * to the parking queue, then ack). It never nacks with requeue, so a poison message cannot spin. If the
 * channel dies before the ack, the broker redelivers and the handler runs again (at-least-once).
 */
export function workQueueProcessor<P>(
  queue: QueueDef,
  handler: MessageHandler<P>,
  logger: MessagingLogger,
  /** Envelope and payload by default; a typed consumer takes the envelope only and parses its payload itself. */
  decode: (msg: ConsumeMessage) => DecodeResult = decodeEnvelope,
) {
  return async (ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> => {
    const ctx = contextOf(msg);
    const log = {
      queue: queue.name,
      messageId: msg.properties.messageId,
      type: msg.properties.type,
      attempt: ctx.attempt,
    };
    const decoded = decode(msg);
    if (!decoded.ok) {
      await parkOrDrop(
        ch,
        msg,
        queue,
        "invalid-envelope",
        ctx.attempt,
        new Error(decoded.reason),
        logger,
        log,
      );
      return;
    }
    try {
      // The payload was validated against the catalogue schema of its type; P is the caller's view of it.
      await handler(decoded.envelope as Envelope<P>, ctx);
    } catch (err) {
      const policy = queue.retry;
      if (!policy) {
        logger.error(
          { ...log, ...errorFields(err) },
          "handler failed on a queue without retry policy; dropped",
        );
        safeAck(ch, msg);
        return;
      }
      if (err instanceof DeferredError && policy.deferMs?.length) {
        try {
          await deferLater(ch, msg, queue, policy.deferMs, ctx.attempt);
        } catch (pubErr) {
          logger.warn({ ...log, ...errorFields(pubErr) }, "could not defer; the broker will redeliver");
        }
      } else if (isPermanent(err)) {
        await parkOrDrop(ch, msg, queue, permanentReason(err), ctx.attempt, err, logger, log);
      } else if (ctx.attempt >= policy.maxAttempts) {
        await parkOrDrop(ch, msg, queue, "max-attempts", ctx.attempt, err, logger, log);
      } else {
        try {
          const delay = await retryLater(ch, msg, { ...queue, retry: policy }, ctx.attempt, err);
          logger.warn({ ...log, ...errorFields(err), delayMs: delay }, "handler failed; retrying later");
        } catch (pubErr) {
          logger.warn(
            { ...log, ...errorFields(pubErr) },
            "could not schedule retry; the broker will redeliver",
          );
        }
      }
      return;
    }
    safeAck(ch, msg);
  };
}

function permanentReason(err: unknown): ParkReason {
  if (err instanceof UnknownMessageTypeError) return "unknown-type";
  if (err instanceof InvalidPayloadError) return "invalid-envelope";
  return "permanent-error";
}

async function parkOrDrop(
  ch: ConfirmChannel,
  msg: ConsumeMessage,
  queue: QueueDef,
  reason: ParkReason,
  attempt: number,
  err: unknown,
  logger: MessagingLogger,
  log: object,
): Promise<void> {
  if (!queue.retry) {
    // Queues without a policy have no parking queue (RPC requests: the caller has long given up).
    logger.error({ ...log, ...errorFields(err), reason }, "message dropped");
    safeAck(ch, msg);
    return;
  }
  try {
    await park(ch, msg, queue, reason, attempt, err);
    logger.error({ ...log, ...errorFields(err), reason }, "message parked");
  } catch (pubErr) {
    logger.warn({ ...log, ...errorFields(pubErr) }, "could not park; the broker will redeliver");
  }
}
