/**
 * PERSISTENT STATE — every name in this file exists on running brokers (durable exchanges, quorum queues,
 * bindings) and in unconsumed messages and outbox rows. Renaming one orphans the old queue and its messages.
 * Add names freely; to rename, add the new name, migrate consumers, drain, then delete the old one.
 * Names of messages, exchanges and queues live here and nowhere else.
 */

/** Topic exchanges (durable). */
export const Exchanges = {
  /** Commands for the send pipeline. */
  emailCommands: "email.commands",
  /**
   * Facts about an email's life (sent, delivered, bounced, …) bound for a client webhook: the client events are
   * published only when the project has a webhook URL for the send's mode (`clientWebhookExistsSql` in
   * @emailsvc/db). The full record of every event is the `email_events` table, not this exchange.
   */
  emailEvents: "email.events",
  /** Raw provider notifications (SES via SNS) accepted by the HTTP edge, waiting to be ingested. */
  providerNotifications: "provider.notifications",
  /** Webhooks received from shop platforms. */
  shopWebhooks: "shop.webhooks",
  /** Background jobs (imports, campaign triggers). */
  jobs: "jobs",
} as const;
export type ExchangeName = (typeof Exchanges)[keyof typeof Exchanges];

/** Routing keys; an envelope's `type` is the routing key it was published under. */
export const RoutingKeys = {
  /** Command: send the listed (already persisted) email activities. */
  emailSendRequested: "email.send-requested",
  /**
   * Command: send the listed activities, on the bulk lane (campaigns). Same payload as email.send-requested; its
   * own queue, so a campaign's backlog never sits in front of transactional mail, and the send-worker gives its
   * sends the global rate's spare slots only (ARCHITECTURE.md "Two lanes, one provider rate").
   */
  emailBulkSendRequested: "email.bulk-send-requested",
  /** Command, RPC: send one activity now and answer with the outcome (synchronous POST /send-email). */
  emailSendRpc: "email.send-rpc",
  /** Event: the provider accepted the email. */
  emailSent: "email.sent",
  /** Event: sending failed for good (after retries or a permanent provider error). */
  emailFailed: "email.failed",
  emailDelivered: "email.delivered",
  emailBounced: "email.bounced",
  emailComplained: "email.complained",
  emailOpened: "email.opened",
  emailClicked: "email.clicked",
  /** Event: the provider refused the email (e.g. virus, suppressed recipient). */
  emailRejected: "email.rejected",
  emailDeliveryDelayed: "email.delivery_delayed",
  /** Event: an inbound email was received and stored. */
  emailInbound: "email.inbound",
  /** A provider notification stored by the HTTP edge, to be parsed and applied. */
  providerNotification: "provider.notification",
  /**
   * An SES "Received" notification (an incoming email) stored by inbound-mail's receiver with its outbox row,
   * to be fetched, parsed, threaded and stored by inbound-mail's consumer.
   */
  inboundReceived: "provider.inbound-received",
  shopCartUpdate: "shop.cart.update",
  shopCheckoutCreate: "shop.checkout.create",
  shopOrderCreate: "shop.order.create",
  /** Command: run a contact import job. */
  jobImportRequested: "job.import-requested",
  /** Command: trigger (dispatch) a campaign. */
  campaignTriggerRequested: "campaign.trigger-requested",
} as const;
export type RoutingKey = (typeof RoutingKeys)[keyof typeof RoutingKeys];

/** Binding pattern matching every email event. */
export const EMAIL_EVENTS_PATTERN = "email.#";

/** Work queues (quorum, durable), named `<service>.<purpose>`. */
export const Queues = {
  sendWorkerSend: "send-worker.send",
  sendWorkerRpc: "send-worker.rpc",
  /** The bulk lane: campaign sends (email.bulk-send-requested). */
  sendWorkerBulk: "send-worker.bulk",
  notificationIngest: "notification-ingest.notifications",
  inboundMailNotifications: "inbound-mail.notifications",
  webhookDispatcherEvents: "webhook-dispatcher.events",
  shopIngestCartUpdate: "shop-ingest.cart-update",
  shopIngestCheckoutCreate: "shop-ingest.checkout-create",
  shopIngestOrderCreate: "shop-ingest.order-create",
  schedulerJobs: "scheduler.jobs",
  campaignDispatcherCommands: "campaign-dispatcher.commands",
} as const;
export type QueueName = (typeof Queues)[keyof typeof Queues];

/**
 * Derived queues, also persistent: `<queue>.retry.<delayMs>` holds a message for `delayMs` then dead-letters it
 * back to `<queue>` only; `<queue>.parking` keeps messages that will not succeed, for a human to inspect.
 * The delay is part of the name so that changing a policy's delays adds queues instead of failing on the
 * broker's "inequivalent arg x-message-ttl" check.
 */
export function retryQueueName(queue: string, delayMs: number): string {
  return `${queue}.retry.${delayMs}`;
}
export function parkingQueueName(queue: string): string {
  return `${queue}.parking`;
}
