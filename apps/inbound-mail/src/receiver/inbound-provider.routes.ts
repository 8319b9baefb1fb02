import type { IncomingMessage, ServerResponse } from "node:http";
import type { Db } from "@emailsvc/db";
import type { Logger } from "@emailsvc/observability";
import { createSnsReceiver, type SnsAnswer, snsFastPath, SnsPayloadError } from "@emailsvc/provider";
import { readReceivedNotification, storableText } from "../domain/ses-received";
import { notificationOutcome, storeNotification } from "../repos/notifications.repo";

export interface InboundProviderDeps {
  db: Db;
  verify(message: Record<string, unknown>): Promise<void>;
  logger: Logger;
  /** The relay publishes the stored outbox row at once instead of at its next poll. */
  kickOutbox(): void;
  confirmSubscription?: (url: string) => Promise<void>;
}

/**
 * POST /api/inbound/provider (spec 4.9) through the shared SNS receiver: signature, certificate host, topic
 * allowlist, SubscriptionConfirmation only to AWS SNS hosts, UnsubscribeConfirmation logged. A Notification is
 * stored with its outbox row before the answer, and processed by the consumer (fetch, parse, thread, store,
 * forward). So the 200 of a new notification cannot carry the thread yet:
 *   200 { success: true, messageId: <SES message id>, threadId: null, projectId: null, status: "queued" }
 * A notification already stored (SNS redelivered it) answers what became of it:
 *   200 { success: true, messageId, threadId, projectId, status: "processed" | "duplicate" | "refused" | "failed"
 *        | "queued" }     (threadId / projectId set once processed and matched)
 * 400: not JSON, not a Received notification, no S3 object or inline content; 403 signature; 500 not stored.
 */
export function inboundProviderHandler(deps: InboundProviderDeps): (raw: string) => Promise<SnsAnswer> {
  return createSnsReceiver({
    verify: deps.verify,
    logger: deps.logger,
    ...(deps.confirmSubscription ? { confirmSubscription: deps.confirmSubscription } : {}),
    async onUnsubscribeConfirmation(msg) {
      // The topic no longer delivers here: say so loudly, replies would stop arriving.
      deps.logger.warn({ topicArn: msg.TopicArn }, "inbound.unsubscribed");
    },
    async onNotification(msg) {
      const n = readReceivedNotification(msg.Message);
      if (typeof n === "string") throw new SnsPayloadError(`Invalid inbound notification: ${n}`);
      // MessageId keys a unique index, whose entries hold a few KB at most (SNS's own are UUIDs)
      if (!storableText(msg.MessageId) || msg.MessageId.length > 255)
        throw new SnsPayloadError(
          "Invalid inbound notification: MessageId must be at most 255 characters, without NUL or unpaired surrogates",
        );
      if (!storableText(msg.TopicArn))
        throw new SnsPayloadError(
          "Invalid inbound notification: TopicArn contains a NUL character or an unpaired surrogate",
        );
      const stored = await storeNotification(deps.db, msg.MessageId, msg.TopicArn, n);
      if (stored.inserted) {
        deps.kickOutbox();
        return { messageId: n.sesMessageId, threadId: null, projectId: null, status: "queued" };
      }
      const known = await notificationOutcome(deps.db, msg.MessageId);
      const status = known?.status === "received" ? "queued" : (known?.status ?? "queued");
      return {
        messageId: known?.sesMessageId ?? n.sesMessageId,
        threadId: known?.threadId ?? null,
        projectId: known?.projectId ?? null,
        status,
      };
    },
  });
}

export const INBOUND_PROVIDER_PATH = "/api/inbound/provider";

/** The route this fast path serves, for the route-coverage check against the public OpenAPI document. */
export const INBOUND_PROVIDER_ROUTES = ["POST /api/inbound/provider"];

/** On plain node:http ahead of Express, as notification-ingest's receiver. */
export function inboundProviderFastPath(
  deps: InboundProviderDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return snsFastPath(INBOUND_PROVIDER_PATH, inboundProviderHandler(deps), deps.logger);
}
