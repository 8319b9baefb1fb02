import { z } from "zod";
import { RoutingKeys, type RoutingKey } from "./names";
import { projectIdSchema } from "../project-id";

// Payloads carry ids, not state: consumers load current state from the database. Objects are loose so a
// producer that adds fields does not break an older consumer; later work extends these schemas.

/**
 * Most activity ids one email.send-requested carries (a 12,500-recipient batch is 25 messages): bounds a
 * message's size and how long one delivery holds its ids before it is acked or retried. Producers split at it
 * (`sendRequestedPayloads`); the schema does not refuse a longer list, because parking a valid command would
 * leave its sends queued for good, while the worker handles any length.
 */
export const SEND_REQUESTED_MAX_IDS = 500;

/** email.send-requested: one activity, or many (a batch, or the v1 sends public-api group-committed together). */
export const emailSendRequestedPayload = z.union([
  z.looseObject({ activityIds: z.array(z.string().min(1)).min(1) }),
  z.looseObject({ activityId: z.string().min(1) }),
]);

export type EmailSendRequestedPayload = z.infer<typeof emailSendRequestedPayload>;

/** The activity ids of an email.send-requested, whichever of its two forms it has. */
export function sendRequestedIds(payload: EmailSendRequestedPayload): string[] {
  // Both forms are loose objects (index signatures), so `in` does not narrow them.
  return Array.isArray(payload.activityIds)
    ? (payload.activityIds as string[])
    : [payload.activityId as string];
}

/** `ids` as email.send-requested payloads of at most `max` (default SEND_REQUESTED_MAX_IDS) ids each, in order. */
export function sendRequestedPayloads(
  ids: readonly string[],
  max: number = SEND_REQUESTED_MAX_IDS,
): { activityIds: string[] }[] {
  const out: { activityIds: string[] }[] = [];
  for (let i = 0; i < ids.length; i += max) out.push({ activityIds: ids.slice(i, i + max) });
  return out;
}

/** email.send-rpc: send this one activity now and answer. */
export const emailSendRpcPayload = z.looseObject({
  activityId: z.string().min(1),
  /**
   * When the caller stops waiting (epoch ms). The worker calls the provider only if the call, with its timeout,
   * ends before then: a call that outlived the caller could send an email the client was told timed out (504).
   */
  deadline: z.number().optional(),
});

/** The send-worker's answer to email.send-rpc. */
export const emailSendRpcReply = z.looseObject({
  activityId: z.string().min(1),
  /** Activity status after the attempt, e.g. "sent" or "failed". */
  status: z.string().min(1),
  /** Provider message id when the provider accepted it. */
  providerMessageId: z.string().optional(),
  /** User-safe reason when it failed. */
  error: z.string().optional(),
  /**
   * Why it failed: the internal POST /send-email maps provider (refused) → 502, transient (no usable answer,
   * the outcome unknown) → 502, timeout → 504, permanent → 502.
   */
  errorKind: z.enum(["provider", "transient", "timeout", "permanent"]).optional(),
});
export type EmailSendRpcReply = z.infer<typeof emailSendRpcReply>;

/** Every email.* event about one activity. */
export const emailEventPayload = z.looseObject({
  activityId: z.string().min(1),
  projectId: projectIdSchema,
  /** The send's mode: test sends go to the project's webhook_url_dev. */
  isTest: z.boolean().optional(),
  /** When it happened (ISO 8601), the client webhook's `timestamp`; publishers fill it in SQL for some events. */
  occurredAt: z.string().optional(),
  /** email.sent: the provider's message id (the activity row may not hold it yet when the webhook is built). */
  providerMessageId: z.string().optional(),
  /** The `email_events` row this event was recorded as. */
  eventRecordId: z.string().optional(),
  /** Event-specific fields merged into the webhook's `data` (`bounce`, `complaint`, `url`, …). */
  details: z.record(z.string(), z.unknown()).optional(),
  /** email.failed: why it failed, user-safe. */
  reason: z.string().optional(),
});
export type EmailEventPayload = z.infer<typeof emailEventPayload>;

/**
 * email.inbound: a received reply, stored (with the exact 6.2 webhook body) before publishing; the
 * webhook-dispatcher delivers it to the project's inbound_webhook_url (live) or inbound_webhook_url_dev (test).
 */
export const emailInboundPayload = z.looseObject({
  /** The `inbound_messages` row. */
  inboundEmailId: z.string().min(1),
  projectId: projectIdSchema,
  /** The original send's mode: a reply to a test send goes to inbound_webhook_url_dev. */
  isTest: z.boolean().optional(),
});

/** provider.inbound-received: an SES Received notification stored by inbound-mail's receiver. */
export const inboundReceivedPayload = z.looseObject({
  /** The `inbound_notifications` row (it holds the SNS MessageId, the S3 key, recipients and verdicts). */
  notificationId: z.string().min(1),
});

/** provider.notification: a raw provider notification stored by the HTTP edge. */
export const providerNotificationPayload = z.looseObject({
  /** The SNS MessageId: the provider's notifications are de-duplicated on it. */
  notificationId: z.string().min(1),
  /** The SNS Message: the SES event as JSON text; the consumer parks one it cannot read. */
  message: z.string().optional(),
  /** The SNS topic it came from (already checked against the allowlist at the edge). */
  topicArn: z.string().optional(),
});

/**
 * shop.*: stored shop webhook deliveries of one project and topic. The receiver group-commits concurrent deliveries
 * and publishes one message per project and topic of each commit (`webhookEventIds`, in arrival order); a message
 * queued before that change names one delivery (`webhookEventId`).
 */
export const shopWebhookPayload = z
  .looseObject({
    webhookEventIds: z.array(z.string().min(1)).min(1).max(1000).optional(),
    webhookEventId: z.string().min(1).optional(),
  })
  .refine((p) => p.webhookEventIds !== undefined || p.webhookEventId !== undefined, {
    message: "webhookEventIds: is required",
  });

/** job.import-requested */
export const importRequestedPayload = z.looseObject({ importJobId: z.string().min(1) });

/** campaign.trigger-requested */
export const campaignTriggerRequestedPayload = z.looseObject({ campaignId: z.string().min(1) });

/** Payload schema per message type (= routing key); consumers park messages whose payload does not parse. */
export const messageSchemas = {
  [RoutingKeys.emailSendRequested]: emailSendRequestedPayload,
  [RoutingKeys.emailBulkSendRequested]: emailSendRequestedPayload,
  [RoutingKeys.emailSendRpc]: emailSendRpcPayload,
  [RoutingKeys.emailSent]: emailEventPayload,
  [RoutingKeys.emailFailed]: emailEventPayload,
  [RoutingKeys.emailDelivered]: emailEventPayload,
  [RoutingKeys.emailBounced]: emailEventPayload,
  [RoutingKeys.emailComplained]: emailEventPayload,
  [RoutingKeys.emailOpened]: emailEventPayload,
  [RoutingKeys.emailClicked]: emailEventPayload,
  [RoutingKeys.emailRejected]: emailEventPayload,
  [RoutingKeys.emailDeliveryDelayed]: emailEventPayload,
  [RoutingKeys.emailInbound]: emailInboundPayload,
  [RoutingKeys.providerNotification]: providerNotificationPayload,
  [RoutingKeys.inboundReceived]: inboundReceivedPayload,
  [RoutingKeys.shopCartUpdate]: shopWebhookPayload,
  [RoutingKeys.shopCheckoutCreate]: shopWebhookPayload,
  [RoutingKeys.shopOrderCreate]: shopWebhookPayload,
  [RoutingKeys.jobImportRequested]: importRequestedPayload,
  [RoutingKeys.campaignTriggerRequested]: campaignTriggerRequestedPayload,
} as const satisfies Record<RoutingKey, z.ZodType>;

export type MessageType = keyof typeof messageSchemas;
export type MessagePayload<K extends MessageType> = z.infer<(typeof messageSchemas)[K]>;

export function isMessageType(type: string): type is MessageType {
  return Object.hasOwn(messageSchemas, type);
}
