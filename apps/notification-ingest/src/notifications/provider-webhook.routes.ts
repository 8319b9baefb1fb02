import type { IncomingMessage, ServerResponse } from "node:http";
import { Exchanges, makeEnvelope, RoutingKeys } from "@emailsvc/contracts";
import type { Broker } from "@emailsvc/messaging";
import type { Logger } from "@emailsvc/observability";
import { createSnsReceiver, type SnsAnswer, snsFastPath } from "@emailsvc/provider";

export interface ProviderWebhookDeps {
  verify(message: Record<string, unknown>): Promise<void>;
  broker: Pick<Broker, "publish">;
  logger: Logger;
  /** Confirms a subscription (GET SubscribeURL); injectable for tests. */
  confirmSubscription?: (url: string) => Promise<void>;
}

/**
 * POST /webhooks/provider (spec 4.9) through the shared SNS receiver (its answers are listed there). A
 * notification is only queued here (confirmed publish, then 200); the DB work runs in the consumer.
 */
export function providerWebhookHandler(deps: ProviderWebhookDeps): (raw: string) => Promise<SnsAnswer> {
  return createSnsReceiver({
    verify: deps.verify,
    logger: deps.logger,
    ...(deps.confirmSubscription ? { confirmSubscription: deps.confirmSubscription } : {}),
    async onNotification(msg) {
      const envelope = makeEnvelope(
        RoutingKeys.providerNotification,
        { notificationId: msg.MessageId, message: msg.Message, topicArn: msg.TopicArn },
        { projectId: null },
      );
      await deps.broker.publish(Exchanges.providerNotifications, RoutingKeys.providerNotification, envelope);
    },
  });
}

/** The route this fast path serves, for the route-coverage check against the public OpenAPI document. */
export const PROVIDER_WEBHOOK_ROUTES = ["POST /webhooks/provider"];

/**
 * POST /webhooks/provider on plain node:http, ahead of Express (as the pixel): every delivery, bounce and open of
 * every email arrives here, and Express's per-request set-up, router walk and body parser cost more than the
 * signature check.
 */
export function providerWebhookFastPath(
  deps: ProviderWebhookDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return snsFastPath("/webhooks/provider", providerWebhookHandler(deps), deps.logger);
}
