import type { ConfirmChannel, Message, Options } from "amqplib";

/** Publishes on a raw confirm channel and resolves once the broker has confirmed (rejects on nack or close). */
export function publishConfirmed(
  ch: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Options.Publish,
): Promise<void> {
  return new Promise((resolve, reject) => {
    try {
      ch.publish(exchange, routingKey, content, options, (err: unknown) => {
        if (err) reject(err instanceof Error ? err : new Error(`publish not confirmed: ${String(err)}`));
        else resolve();
      });
    } catch (err) {
      reject(err);
    }
  });
}

/**
 * Acks on the channel the message came from. If that channel is gone the broker has already put the message
 * back (it will be redelivered), so there is nothing left to do.
 */
export function safeAck(ch: ConfirmChannel, msg: Message): boolean {
  try {
    ch.ack(msg);
    return true;
  } catch {
    return false;
  }
}
