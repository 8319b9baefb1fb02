import { consumerCatalogue, Queues, RoutingKeys } from "@emailsvc/contracts";
import { defineConsumer, RetryableError } from "@emailsvc/messaging";
import { type ProcessDeps, processNotification } from "./process-notification";

const MAX_ATTEMPTS = consumerCatalogue[Queues.inboundMailNotifications].retry.maxAttempts;

/**
 * provider.inbound-received → processNotification: the notifications the receiver could not finish before its
 * answer (it died, or its time budget ran out), or all of them when INBOUND_SYNC_BUDGET_MS=0. Each handler acks once the notification is finished (stored,
 * duplicate, refused or failed: an unreadable message is recorded, never retried, so it cannot block the queue);
 * S3, SES or the database failing retries it later. A missing S3 object is retried until the last attempt, then
 * recorded as failed.
 */
export function inboundConsumer(deps: ProcessDeps) {
  return defineConsumer(Queues.inboundMailNotifications, {
    [RoutingKeys.inboundReceived]: async (envelope, ctx) => {
      const { outcome } = await processNotification(deps, envelope.payload.notificationId, {
        lastAttempt: ctx.attempt >= MAX_ATTEMPTS,
      });
      if (outcome === "retry")
        throw new RetryableError(`the inbound object of ${envelope.payload.notificationId} is not in S3 yet`);
    },
  });
}
