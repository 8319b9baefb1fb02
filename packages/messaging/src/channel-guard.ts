import type { AmqpConnectionManager } from "amqp-connection-manager";
import type { Channel } from "amqplib";
import { errorFields, type MessagingLogger } from "./logger";

export interface GuardDeps {
  manager: AmqpConnectionManager;
  logger: MessagingLogger;
  isClosing: () => boolean;
  reconnectDelayMs: number;
}

/**
 * amqp-connection-manager re-creates channels only when the connection comes back; a channel the broker closes
 * on its own (404 unknown exchange, 406 inequivalent queue arguments, unknown delivery tag) would stay dead
 * while the connection lives. Force a reconnect after a pause instead, so every channel is set up again (the
 * pause keeps a persistent misconfiguration from spinning).
 */
export function guardChannel(ch: Channel, channelName: string, deps: GuardDeps): void {
  const connection = deps.manager.connection;
  ch.on("error", (err: Error) => {
    deps.logger.warn(
      { ...errorFields(err), channel: channelName },
      "broker closed the channel; reconnecting",
    );
    const timer = setTimeout(() => {
      if (deps.isClosing() || !connection || deps.manager.connection !== connection) return;
      try {
        deps.manager.reconnect();
      } catch {
        // closed meanwhile
      }
    }, deps.reconnectDelayMs);
    timer.unref();
  });
}
