import { randomUUID } from "node:crypto";
import { domainToUnicode } from "node:url";
import { isUuid, makeEnvelope, projectIdOf } from "@emailsvc/contracts";
import {
  ACTIVITY_TRANSITIONS,
  applyNotificationRows,
  type Db,
  type NotificationRow,
  timeOrderedUuid,
} from "@emailsvc/db";
import { EVENT_MAP, eventDetails, eventTimestamp, type SesEvent } from "./domain/ses-event";

/**
 * `deferred`: another notification for the same activity came earlier in the same batch; it is applied in a
 * later batch, so the steps on one activity stay in arrival order.
 * `unknown-activity`: no activity has its message id yet (untagged: its send's answer may not be recorded yet).
 * `unmatched`: its `activity_id` tag names no activity here that has this message id, or no message id yet. Our
 * sends are stored and tagged before SES sees them, and a tagged activity without a provider id matches by its tag,
 * so this one never will match: another installation's send, the first copy of a send the reconciler sent again,
 * or a tag copied onto another message. (Retried, it came back six times over six minutes, then was parked.)
 */
export type ApplyResult = "applied" | "duplicate" | "ignored" | "unknown-activity" | "unmatched" | "deferred";

export interface ProviderNotification {
  /** The SNS MessageId: the de-duplication key. */
  snsMessageId: string;
  event: SesEvent;
}

/** The bare address of `a@b.c` or `"Name" <a@b.c>`, lower-cased. */
const bare = (address: string): string => (/<([^>]+)>/.exec(address)?.[1] ?? address).trim().toLowerCase();

/** The recipients a Bounce, Complaint, Delivery or DeliveryDelay notification names (SES lists them per event). */
function namedRecipients(type: string, event: SesEvent): string[] {
  const list =
    type === "Bounce"
      ? event.bounce?.bouncedRecipients?.map((r) => r.emailAddress)
      : type === "Complaint"
        ? event.complaint?.complainedRecipients?.map((r) => r.emailAddress)
        : type === "Delivery"
          ? event.delivery?.recipients
          : type === "DeliveryDelay"
            ? event.deliveryDelay?.delayedRecipients?.map((r) => r.emailAddress)
            : undefined;
  const addresses = (list ?? [])
    .filter((a): a is string => typeof a === "string" && a.includes("@"))
    .map(bare);
  // SES names an internationalised domain in punycode (the form the worker hands it), while activities and
  // suppressions keep the address as the client wrote it: both spellings, so the notification applies to its
  // recipient and a bounce suppresses the address as later sends spell it.
  return [...new Set(addresses.flatMap((a) => [a, unicodeDomainAddress(a)]))];
}

function unicodeDomainAddress(address: string): string {
  const at = address.lastIndexOf("@");
  const domain = address.slice(at + 1);
  if (!domain.includes("xn--")) return address;
  return `${address.slice(0, at)}@${domainToUnicode(domain) || domain}`;
}

/** The statement's parameters for one notification, or null for an event type we do not record. */
function toRow({ snsMessageId, event }: ProviderNotification): NotificationRow | null {
  const type = event.eventType ?? event.notificationType ?? "";
  const map = EVENT_MAP[type];
  if (!map) return null;
  const at = eventTimestamp(event);
  const tagged = event.mail.tags?.activity_id?.[0];
  // time-ordered: event records append to email_events' primary key (see timeOrderedUuid)
  const eventRecordId = timeOrderedUuid();
  const details = eventDetails(event);
  // Built here so its shape stays makeEnvelope's; the statement sets activityId, projectId and isTest.
  const envelope = map.clientEvent
    ? makeEnvelope(
        map.clientEvent,
        {
          activityId: "",
          projectId: projectIdOf(""),
          isTest: false,
          occurredAt: at.toISOString(),
          eventRecordId,
          ...(details ? { details } : {}),
        },
        { projectId: null, causationId: snsMessageId },
      )
    : null;
  return {
    messageId: event.mail.messageId,
    tagged: isUuid(tagged) ? tagged : null,
    eventRecordId,
    stored: map.stored,
    snsMessageId,
    at,
    payload: JSON.stringify(event),
    isSend: type === "Send",
    status: map.status,
    // forward-only (ACTIVITY_TRANSITIONS): a late Delivery never overwrites opened, nothing leaves bounced
    allowed: map.status ? ACTIVITY_TRANSITIONS[map.status].join(",") : null,
    atColumn: map.status ? map.at : null,
    bounceType: map.status ? (event.bounce?.bounceType ?? null) : null,
    // Hard bounces and complaints suppress the recipient; a soft (Transient) bounce does not.
    suppress:
      type === "Complaint"
        ? "complaint"
        : type === "Bounce" && event.bounce?.bounceType === "Permanent"
          ? "bounce"
          : null,
    outboxId: envelope ? randomUUID() : null,
    routingKey: map.clientEvent,
    envelope: envelope ? JSON.stringify(envelope) : null,
    named: namedRecipients(type, event).join("\n") || null,
  };
}

/**
 * Provider notifications, each: the email event record (de-duplicated by the SNS MessageId), the forward-only
 * activity update of spec 4.9, the suppression of hard bounces and complaints, and the outbox row of the client
 * webhook event; the whole batch in one statement (@emailsvc/db's applyNotificationRows). One result per notification, in order.
 */
export async function applyNotifications(
  db: Db,
  batch: readonly ProviderNotification[],
  /** Called with the number of client events the batch wrote to the outbox, when there are any. */
  onOutboxRows?: (count: number) => void,
): Promise<ApplyResult[]> {
  const rows = batch.map(toRow);
  const known = rows.filter((r): r is NotificationRow => r !== null);
  const results: ApplyResult[] = rows.map(() => "ignored");
  if (!known.length) return results;
  const outcomes = await applyNotificationRows(db, known);
  const published = outcomes[0]?.published ?? 0;
  if (published > 0) onOutboxRows?.(published);
  const byOrd = outcomes.map((r, i): ApplyResult =>
    !r.found
      ? known[i]!.tagged
        ? "unmatched"
        : "unknown-activity"
      : !r.first
        ? "deferred"
        : r.inserted
          ? "applied"
          : "duplicate",
  );
  let k = 0;
  rows.forEach((r, i) => {
    if (r) results[i] = byOrd[k++]!;
  });
  return results;
}

/** One notification on its own (a batch of one). */
export async function applyNotification(db: Db, snsMessageId: string, event: SesEvent): Promise<ApplyResult> {
  return (await applyNotifications(db, [{ snsMessageId, event }]))[0]!;
}
