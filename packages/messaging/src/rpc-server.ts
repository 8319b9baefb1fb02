import type { ConfirmChannel, ConsumeMessage } from "amqplib";
import type { Envelope, QueueDef } from "@emailsvc/contracts";
import { decodeEnvelope } from "./codec";
import { publishConfirmed, safeAck } from "./confirm";
import { contextOf, type MessageContext } from "./consume";
import { errorFields, type MessagingLogger } from "./logger";
import { encodeReply, type RpcReply } from "./rpc-protocol";
import { errorText } from "./settle";

/** Returns the reply payload; a throw is sent back to the caller as `RpcRemoteError`. */
export type RpcHandler<P = unknown, R = unknown> = (
  envelope: Envelope<P>,
  ctx: MessageContext,
) => Promise<R> | R;

/**
 * Answers every request exactly once, then acks it: errors are replies too, never retries (the caller waits
 * synchronously and decides). A request without `replyTo` is still handled, its result discarded.
 */
export function rpcProcessor<P, R>(queue: QueueDef, handler: RpcHandler<P, R>, logger: MessagingLogger) {
  return async (ch: ConfirmChannel, msg: ConsumeMessage): Promise<void> => {
    const ctx = contextOf(msg);
    const decoded = decodeEnvelope(msg);
    let reply: RpcReply;
    if (!decoded.ok) {
      reply = { ok: false, error: { name: "InvalidEnvelope", message: decoded.reason } };
    } else {
      try {
        reply = { ok: true, payload: await handler(decoded.envelope as Envelope<P>, ctx) };
      } catch (err) {
        reply = {
          ok: false,
          error: { name: err instanceof Error ? err.name : "Error", message: errorText(err) },
        };
      }
    }
    const { replyTo, correlationId } = msg.properties;
    if (replyTo) {
      try {
        const options = { contentType: "application/json", ...(correlationId ? { correlationId } : {}) };
        await publishConfirmed(ch, "", replyTo, encodeReply(reply), options);
      } catch (err) {
        // The caller's channel is gone (it timed out or died): nobody is left to answer.
        logger.warn({ ...errorFields(err), queue: queue.name }, "could not send RPC reply");
      }
    }
    safeAck(ch, msg);
  };
}
