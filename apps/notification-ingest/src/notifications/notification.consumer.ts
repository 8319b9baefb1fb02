import { Queues, RoutingKeys } from "@emailsvc/contracts";
import { createBatcher, type Db } from "@emailsvc/db";
import { defineConsumer, PermanentError, RetryableError } from "@emailsvc/messaging";
import type { Logger } from "@emailsvc/observability";
import { parseSesEvent, type SesEvent } from "./domain/ses-event";
import { type ApplyResult, applyNotifications, type ProviderNotification } from "./apply-notification";

/**
 * provider.notification → applyNotifications. The queue's concurrent handlers each submit their notification to
 * one batcher, so the deliveries in flight are applied together in one statement; each handler still acks or
 * retries its own message. An event for an activity we cannot find yet is retried, unless its tag says it never
 * will be found (`unmatched`).
 */
export function notificationConsumer(deps: { db: Db; logger: Logger; kickOutbox: () => void }) {
  const batcher = createBatcher<ProviderNotification, ApplyResult>({
    // The relay is kicked only after a batch that wrote client events (projects with a webhook URL).
    run: (batch) => applyNotifications(deps.db, batch, () => deps.kickOutbox()),
  });
  return defineConsumer(Queues.notificationIngest, {
    [RoutingKeys.providerNotification]: async (envelope) => {
      let event: SesEvent;
      try {
        event = parseSesEvent(envelope.payload.message ?? "");
        if (!event?.mail?.messageId) throw new Error("no mail.messageId");
      } catch (err) {
        throw new PermanentError(`unreadable SES event: ${err instanceof Error ? err.message : String(err)}`);
      }
      const item = { snsMessageId: envelope.payload.notificationId, event };
      let result = await batcher.submit(item);
      // Another notification for the same activity went first in that batch: this one follows in a later batch.
      while (result === "deferred") result = await batcher.submit(item);
      if (result === "unknown-activity")
        throw new RetryableError(`no activity for provider message ${event.mail.messageId}`);
      // Retrying cannot help it (see ApplyResult): acknowledged, not retried six times over minutes and parked.
      if (result === "unmatched")
        deps.logger.warn(
          { providerMessageId: event.mail.messageId, activityId: event.mail.tags?.activity_id?.[0] },
          "notification for a tagged activity this installation does not have with that message id; dropped",
        );
    },
  });
}
