import { RoutingKeys } from "@emailsvc/contracts";

/** The SES event (inside the SNS Message) fields we use; both event publishing and legacy notification shapes. */
export interface SesEvent {
  eventType?: string;
  notificationType?: string;
  mail: { messageId: string; timestamp?: string; destination?: string[]; tags?: Record<string, string[]> };
  bounce?: {
    bounceType?: string;
    bounceSubType?: string;
    timestamp?: string;
    bouncedRecipients?: { emailAddress: string; diagnosticCode?: string }[];
  };
  complaint?: {
    timestamp?: string;
    complaintFeedbackType?: string;
    complainedRecipients?: { emailAddress: string }[];
  };
  delivery?: { timestamp?: string; recipients?: string[] };
  reject?: { reason?: string };
  deliveryDelay?: { timestamp?: string; delayType?: string; delayedRecipients?: { emailAddress: string }[] };
}

/** A NUL or an unpaired UTF-16 surrogate: JSON can escape both, PostgreSQL's text and jsonb hold neither. */
const ESCAPED_UNSTORABLE = /\\u(?:0000|[dD][89a-fA-F])/;
const RAW_SUSPECT = /[\0\ud800-\udfff]/;
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The SES event of a notification's Message (throws when it is not JSON). SES copies some strings from elsewhere (a
 * receiving server's reply, a decoded header), and a NUL or an unpaired surrogate in one failed the event's insert:
 * an authentic bounce was retried six times, then parked. Each such character becomes U+FFFD, and the event applies.
 */
export function parseSesEvent(message: string): SesEvent {
  // Without a NUL or a surrogate in the text, escaped or not (the Message was itself a JSON string, so it may hold
  // the character raw), the plain parse: about three times faster than with a reviver.
  if (!ESCAPED_UNSTORABLE.test(message) && !RAW_SUSPECT.test(message)) return JSON.parse(message) as SesEvent;
  return JSON.parse(message, (_key, value: unknown) =>
    typeof value === "string" ? value.replace(UNSTORABLE, "\uFFFD") : value,
  ) as SesEvent;
}

/** The client events a provider notification can become. */
export type ClientEventType =
  | typeof RoutingKeys.emailDelivered
  | typeof RoutingKeys.emailBounced
  | typeof RoutingKeys.emailComplained
  | typeof RoutingKeys.emailRejected
  | typeof RoutingKeys.emailDeliveryDelayed;

/** Spec 4.9 mapping: provider event → stored event type, client event, and the status it moves to. */
export const EVENT_MAP: Record<
  string,
  {
    stored: string;
    clientEvent: ClientEventType | null;
    status: "delivered" | "bounced" | "complained" | null;
    at: string | null;
  }
> = {
  Send: { stored: "sent", clientEvent: null, status: null, at: null }, // email.sent comes from the send-worker
  Delivery: {
    stored: "delivered",
    clientEvent: RoutingKeys.emailDelivered,
    status: "delivered",
    at: "delivered_at",
  },
  Bounce: { stored: "bounce", clientEvent: RoutingKeys.emailBounced, status: "bounced", at: "bounced_at" },
  Complaint: {
    stored: "complaint",
    clientEvent: RoutingKeys.emailComplained,
    status: "complained",
    at: "complained_at",
  },
  Reject: { stored: "reject", clientEvent: RoutingKeys.emailRejected, status: null, at: null },
  DeliveryDelay: {
    stored: "delivery_delay",
    clientEvent: RoutingKeys.emailDeliveryDelayed,
    status: null,
    at: null,
  },
};

export function eventTimestamp(e: SesEvent): Date {
  const t =
    e.delivery?.timestamp ??
    e.bounce?.timestamp ??
    e.complaint?.timestamp ??
    e.deliveryDelay?.timestamp ??
    e.mail.timestamp;
  const d = t ? new Date(t) : new Date();
  return Number.isNaN(d.getTime()) ? new Date() : d;
}

/** Details passed to the client webhook for bounces and complaints. */
export function eventDetails(e: SesEvent): Record<string, unknown> | undefined {
  if (e.bounce) {
    return {
      bounce: {
        type: e.bounce.bounceType ?? null,
        sub_type: e.bounce.bounceSubType ?? null,
        recipients: (e.bounce.bouncedRecipients ?? []).map((r) => ({
          email: r.emailAddress,
          diagnostic: r.diagnosticCode ?? null,
        })),
      },
    };
  }
  if (e.complaint)
    return {
      complaint: {
        feedback_type: e.complaint.complaintFeedbackType ?? null,
        recipients: (e.complaint.complainedRecipients ?? []).map((r) => r.emailAddress),
      },
    };
  if (e.reject) return { reject: { reason: e.reject.reason ?? null } };
  if (e.deliveryDelay) return { delivery_delay: { type: e.deliveryDelay.delayType ?? null } };
  return undefined;
}
