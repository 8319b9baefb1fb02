import { randomUUID } from "node:crypto";
import type { SimMessage } from "../state/types";

/** What the SES mailbox simulator does with one recipient. */
export type RecipientOutcome =
  { kind: "delivery" } | { kind: "bounce"; subType: "General" | "Suppressed" } | { kind: "complaint" };

const SIMULATOR = /^([a-z]+)(\+[^@]*)?@simulator\.amazonaws\.com$/i;

/** SES mailbox simulator addresses (labels like `bounce+x@` work too); anything else is delivered. */
export function recipientOutcome(address: string): RecipientOutcome {
  const m = SIMULATOR.exec(address.trim());
  switch (m?.[1]?.toLowerCase()) {
    case "bounce":
      return { kind: "bounce", subType: "General" };
    case "suppressionlist":
      return { kind: "bounce", subType: "Suppressed" };
    case "complaint":
      return { kind: "complaint" };
    default:
      // success@ and ooto@ are delivered (SES's ooto auto-reply is not simulated).
      return { kind: "delivery" };
  }
}

export interface EventContext {
  region: string;
  accountId: string;
}

function mailObject(m: SimMessage, ctx: EventContext) {
  const domain = m.from.split("@")[1] ?? m.from;
  const tags: Record<string, string[]> = {
    "ses:operation": ["SendEmail"],
    "ses:source-ip": ["127.0.0.1"],
    "ses:from-domain": [domain],
    "ses:caller-identity": ["provider-simulator"],
    ...(m.configurationSet ? { "ses:configuration-set": [m.configurationSet] } : {}),
  };
  for (const [k, v] of Object.entries(m.tags)) tags[k] = [v];
  const header = (name: string) => m.headers.find((h) => h.name.toLowerCase() === name)?.value;
  return {
    timestamp: m.timestamp,
    source: m.from,
    sourceArn: `arn:aws:ses:${ctx.region}:${ctx.accountId}:identity/${domain}`,
    sendingAccountId: ctx.accountId,
    messageId: m.id,
    destination: m.destination,
    headersTruncated: false,
    headers: m.headers,
    commonHeaders: {
      from: [header("from") ?? m.from],
      to: m.to,
      ...(m.cc.length ? { cc: m.cc } : {}),
      ...(m.headerMessageId ? { messageId: m.headerMessageId } : {}),
      subject: m.subject,
      ...(header("date") ? { date: header("date") } : {}),
    },
    tags,
  };
}

/**
 * The SES "event publishing" records (configuration set → SNS) for one accepted message, in the order SES
 * emits them: Send first, then Delivery / Bounce / Complaint for the affected recipients.
 */
export function sesEventsFor(m: SimMessage, ctx: EventContext): Record<string, unknown>[] {
  const mail = mailObject(m, ctx);
  const later = (ms: number) => new Date(m.receivedAtMs + ms).toISOString();
  const delivered: string[] = [];
  const complained: string[] = [];
  const bounced = new Map<"General" | "Suppressed", string[]>();
  for (const r of m.destination) {
    const o = recipientOutcome(r);
    if (o.kind === "bounce") bounced.set(o.subType, [...(bounced.get(o.subType) ?? []), r]);
    else {
      delivered.push(r);
      if (o.kind === "complaint") complained.push(r);
    }
  }

  const events: Record<string, unknown>[] = [{ eventType: "Send", mail, send: {} }];
  if (delivered.length) {
    events.push({
      eventType: "Delivery",
      mail,
      delivery: {
        timestamp: later(400),
        processingTimeMillis: 400,
        recipients: delivered,
        smtpResponse: "250 2.6.0 Message received",
        reportingMTA: "a8-1.smtp-out.amazonses.com",
        remoteMtaIp: "127.0.0.1",
      },
    });
  }
  for (const [subType, recipients] of bounced) {
    const suppressed = subType === "Suppressed";
    events.push({
      eventType: "Bounce",
      mail,
      bounce: {
        feedbackId: `${randomUUID()}-000000`,
        bounceType: "Permanent",
        bounceSubType: subType,
        bouncedRecipients: recipients.map((emailAddress) => ({
          emailAddress,
          action: "failed",
          status: "5.1.1",
          diagnosticCode: suppressed
            ? "Amazon SES has suppressed sending to this address because it has a recent history of bouncing as an invalid address."
            : "smtp; 550 5.1.1 user unknown",
        })),
        timestamp: later(500),
        ...(suppressed ? {} : { reportingMTA: "dns; a8-1.smtp-out.amazonses.com" }),
      },
    });
  }
  if (complained.length) {
    events.push({
      eventType: "Complaint",
      mail,
      complaint: {
        feedbackId: `${randomUUID()}-000000`,
        complaintSubType: null,
        complainedRecipients: complained.map((emailAddress) => ({ emailAddress })),
        timestamp: later(1000),
        userAgent: "Amazon SES Mailbox Simulator",
        complaintFeedbackType: "abuse",
        arrivalDate: later(900),
      },
    });
  }
  return events;
}
