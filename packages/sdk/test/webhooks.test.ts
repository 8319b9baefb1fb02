// verifyWebhook against deliveries made by the service's own code: bodies from webhook-dispatcher's and
// inbound-mail's builders, headers from webhook-dispatcher's signer (the one every attempt uses). Importing those
// app files here is deliberate and test-only: the SDK must verify exactly what the dispatcher sends, and a change
// of the scheme or of a payload's fields fails here. (ARCHITECTURE's rule is about apps importing apps.)
import { randomUUID } from "node:crypto";
import { eventsConsumer } from "../../../apps/webhook-dispatcher/src/consumers/events.consumer.js";
import { signedHeaders } from "../../../apps/webhook-dispatcher/src/domain/sign.js";
import { buildEventBody } from "../../../apps/webhook-dispatcher/src/use-cases/build-event-body.js";
import { buildInboundWebhookBody } from "../../../apps/inbound-mail/src/replies/domain/webhook-body.js";
import { projectIdOf } from "@emailsvc/contracts";
import {
  verifyWebhook,
  WebhookVerificationError,
  WEBHOOK_EVENT_NAMES,
  type EmailBouncedEvent,
  type EmailClickedEvent,
  type EmailComplainedEvent,
  type EmailDeliveryDelayedEvent,
  type EmailInboundEvent,
  type EmailRejectedEvent,
  type EmailSentEvent,
  type WebhookEvent,
} from "../src/index.js";

const LIVE_KEY = "sk_live_" + "a1".repeat(24);
const TEST_KEY = "sk_test_" + "b2".repeat(24);
const projectId = projectIdOf("0e7d0f43-8a55-4c40-9b2a-8f2f2c6c1a11");

const source = {
  id: "5b1f7a0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
  project_id: projectId,
  is_test: false,
  recipient: "ada@example.com",
  provider_message_id: "0100018f-ses-id",
  campaign_id: null,
  batch_id: null,
  email_type: "transactional",
  email_id: "7f0c1a52-3f5e-4c1b-9d8e-2a0b6c1d2e3f",
  from_email: "hi@shop.example",
  subject: "Your order",
  from_template: false,
  data: null,
  webhook_url: "https://hooks.example/live",
  webhook_url_dev: "https://hooks.example/dev",
};

/** An outbound event body exactly as the dispatcher builds it. */
function outbound(event: string, details?: Record<string, unknown>, isTest = false): string {
  return buildEventBody(
    event,
    { ...source, is_test: isTest },
    { activityId: source.id, projectId, ...(details ? { details } : {}) },
  ).body;
}

function inbound(): string {
  return buildInboundWebhookBody({
    inboundId: randomUUID(),
    projectId,
    isTest: false,
    threadId: randomUUID(),
    messageId: "<reply-1@mail.example>",
    inReplyTo: "<orig-1@shop.example>",
    references: ["<orig-1@shop.example>"],
    from: { email: "ada@example.com", name: "Ada" },
    to: [{ email: "r-abcd1234@inbound.example", name: null }],
    cc: [],
    subject: "Re: Your order",
    text: "Thanks!\n\n> quoted",
    html: "<p>Thanks!</p>",
    date: new Date("2026-01-02T03:04:05Z"),
    attachments: [
      {
        filename: "a.pdf",
        content_type: "application/pdf",
        size: 12,
        storage_key: "k",
        download_url: "https://x/a",
      },
    ],
    returnPathParsed: null,
    original: {
      messageId: "<orig-1@shop.example>",
      activityId: source.id,
      campaignId: null,
      emailType: "transactional",
    },
    replyText: "Thanks!",
    kind: "reply",
    verdicts: { spam: "PASS", virus: "PASS", spf: "PASS", dkim: "PASS", dmarc: "PASS", dmarc_policy: null },
    suspicious: false,
    matchedBy: "reply_token",
    receivedAt: new Date("2026-01-02T03:04:06Z"),
  });
}

const sign = (body: string, key = LIVE_KEY, now = new Date()) => signedHeaders(body, key, randomUUID(), now);

async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookVerificationError);
    return (e as Error).message;
  }
  throw new Error("expected verifyWebhook to refuse the delivery");
}

describe("verifyWebhook", () => {
  it("accepts an outbound event signed by the dispatcher and returns it typed by `event`", async () => {
    const body = outbound("email.bounced", {
      bounce: {
        type: "Permanent",
        sub_type: "General",
        recipients: [{ email: "ada@example.com", diagnostic: "550" }],
      },
    });
    const event = await verifyWebhook(body, sign(body), LIVE_KEY);
    expect(event.event).toBe("email.bounced");
    if (event.event !== "email.bounced") throw new Error("narrowing");
    // typed: bounce exists only on the bounced event
    expect(event.data.bounce.recipients[0]!.email).toBe("ada@example.com");
    expect(event.data.activity_id).toBe(source.id);
  });

  it("accepts the inbound reply event (spec 6.2), its X-SVC-Signature and Standard Webhooks headers both checked", async () => {
    const body = inbound();
    const headers = sign(body);
    expect(headers["X-SVC-Signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    const event = await verifyWebhook(body, headers, LIVE_KEY);
    if (event.event !== "email.inbound") throw new Error(`got ${event.event}`);
    expect(event.data.reply_text).toBe("Thanks!");
    expect(event.data.attachments[0]!.content_type).toBe("application/pdf");
  });

  it("accepts Node's lower-case header object, a Headers instance, and a Buffer body", async () => {
    const body = outbound("email.delivered");
    const h = sign(body);
    const lower = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
    await expect(verifyWebhook(Buffer.from(body), lower, LIVE_KEY)).resolves.toMatchObject({
      event: "email.delivered",
    });
    await expect(
      verifyWebhook(new TextEncoder().encode(body), new Headers(h), LIVE_KEY),
    ).resolves.toMatchObject({
      event: "email.delivered",
    });
  });

  it("accepts the secret in Standard Webhooks form (whsec_ + base64 of the key)", async () => {
    const body = outbound("email.opened");
    const secret = "whsec_" + Buffer.from(LIVE_KEY).toString("base64");
    await expect(verifyWebhook(body, sign(body), secret)).resolves.toMatchObject({ event: "email.opened" });
  });

  it("refuses a changed body, another key, and a test event checked with the live key", async () => {
    const body = outbound("email.delivered");
    const headers = sign(body);
    expect(await rejection(verifyWebhook(body.replace("ada@", "eve@"), headers, LIVE_KEY))).toMatch(
      /does not match/,
    );
    expect(await rejection(verifyWebhook(body, headers, LIVE_KEY + "x"))).toMatch(/does not match/);
    const testBody = outbound("email.delivered", undefined, true);
    expect(await rejection(verifyWebhook(testBody, sign(testBody, TEST_KEY), LIVE_KEY))).toMatch(
      /does not match/,
    );
    await expect(verifyWebhook(testBody, sign(testBody, TEST_KEY), TEST_KEY)).resolves.toMatchObject({
      is_test: true,
    });
  });

  it("refuses when either signature is wrong, even if the other is right", async () => {
    const body = outbound("email.sent");
    const good = sign(body);
    const other = sign(outbound("email.delivered"));
    const badSvc = { ...good, "X-SVC-Signature": other["X-SVC-Signature"] };
    expect(await rejection(verifyWebhook(body, badSvc, LIVE_KEY))).toMatch(/X-SVC-Signature/);
    const badStandard = { ...good, "webhook-signature": "v1," + Buffer.alloc(32).toString("base64") };
    expect(await rejection(verifyWebhook(body, badStandard, LIVE_KEY))).toMatch(/webhook-signature/);
  });

  it("accepts one matching signature among several (a key rotation)", async () => {
    const body = outbound("email.sent");
    const h = sign(body);
    const rotated = {
      ...h,
      "webhook-signature": `v1,${Buffer.alloc(32, 1).toString("base64")} ${h["webhook-signature"]}`,
    };
    await expect(verifyWebhook(body, rotated, LIVE_KEY)).resolves.toMatchObject({ event: "email.sent" });
  });

  it("refuses a delivery older or newer than the tolerance (default 5 minutes), accepts one inside it", async () => {
    const body = outbound("email.clicked", { url: "https://shop.example/x" });
    const signedAt = new Date("2026-03-01T12:00:00Z");
    const h = sign(body, LIVE_KEY, signedAt);
    const at = (seconds: number) => new Date(signedAt.getTime() + seconds * 1000);
    expect(await rejection(verifyWebhook(body, h, LIVE_KEY, { now: at(301) }))).toMatch(/too old/);
    expect(await rejection(verifyWebhook(body, h, LIVE_KEY, { now: at(-301) }))).toMatch(/too new/);
    await expect(verifyWebhook(body, h, LIVE_KEY, { now: at(299) })).resolves.toMatchObject({
      event: "email.clicked",
    });
    expect(await rejection(verifyWebhook(body, h, LIVE_KEY, { now: at(61), toleranceSeconds: 60 }))).toMatch(
      /too old/,
    );
  });

  it("accepts X-SVC-Signature alone (spec 6.2), unless requireTimestamp; refuses no signature at all", async () => {
    const body = inbound();
    const only = { "X-SVC-Signature": sign(body)["X-SVC-Signature"] };
    await expect(verifyWebhook(body, only, LIVE_KEY)).resolves.toMatchObject({ event: "email.inbound" });
    expect(await rejection(verifyWebhook(body, only, LIVE_KEY, { requireTimestamp: true }))).toMatch(
      /timestamp/,
    );
    expect(await rejection(verifyWebhook(body, { "content-type": "application/json" }, LIVE_KEY))).toMatch(
      /No signature/,
    );
    const partial = { "webhook-id": "x", "X-SVC-Signature": only["X-SVC-Signature"] };
    expect(await rejection(verifyWebhook(body, partial, LIVE_KEY))).toMatch(/Incomplete/);
  });
});

// Each type's fields against a body the service's own builder makes: a field added or renamed on the server fails
// here until the type follows. The samples are fully typed literals, so tsc checks them against the SDK's types.
describe("webhook payload types", () => {
  const base = {
    activity_id: "",
    email_id: "",
    message_id: "",
    project_id: "",
    recipient: "",
    from: "",
    subject: "",
    campaign_id: null,
    batch_id: null,
    email_type: "",
    timestamp: "",
  };
  const envelope = { is_test: false, created_at: "" };
  const sent: EmailSentEvent = { event: "email.sent", ...envelope, data: base };
  const bounced: EmailBouncedEvent = {
    event: "email.bounced",
    ...envelope,
    data: { ...base, bounce: { type: null, sub_type: null, recipients: [] } },
  };
  const complained: EmailComplainedEvent = {
    event: "email.complained",
    ...envelope,
    data: { ...base, complaint: { feedback_type: null, recipients: [] } },
  };
  const rejected: EmailRejectedEvent = {
    event: "email.rejected",
    ...envelope,
    data: { ...base, reject: { reason: null } },
  };
  const delayed: EmailDeliveryDelayedEvent = {
    event: "email.delivery_delayed",
    ...envelope,
    data: { ...base, delivery_delay: { type: null } },
  };
  const clicked: EmailClickedEvent = { event: "email.clicked", ...envelope, data: { ...base, url: "" } };

  const keys = (o: object) => Object.keys(o).sort();

  it.each<[WebhookEvent, Record<string, unknown> | undefined]>([
    [sent, undefined],
    [bounced, { bounce: { type: null, sub_type: null, recipients: [] } }],
    [complained, { complaint: { feedback_type: null, recipients: [] } }],
    [rejected, { reject: { reason: null } }],
    [delayed, { delivery_delay: { type: null } }],
    [clicked, { url: "https://x" }],
  ])("%# the type has the fields of the dispatcher's body", (sample, details) => {
    const built = JSON.parse(outbound(sample.event, details)) as WebhookEvent;
    expect(keys(built)).toEqual(keys(sample));
    expect(keys(built.data)).toEqual(keys(sample.data));
  });

  it("the inbound type has the fields of inbound-mail's body", () => {
    const built = JSON.parse(inbound()) as EmailInboundEvent;
    const sample: EmailInboundEvent["data"] = {
      message_id: "",
      thread_id: "",
      in_reply_to: "",
      references: [],
      from: { email: "", name: null },
      to: [],
      cc: [],
      subject: "",
      text_body: "",
      html_body: "",
      date: "",
      attachments: [],
      return_path_parsed: null,
      original_outbound: {
        message_id: "",
        activity_id: null,
        campaign_id: null,
        email_type: null,
        thread_id: "",
      },
      reply_text: "",
      kind: "reply",
      verdicts: { spam: null, virus: null, spf: null, dkim: null, dmarc: null, dmarc_policy: null },
      suspicious: false,
      matched_by: "",
      inbound_id: "",
    };
    expect(keys(built)).toEqual(["data", "event", "is_test", "project_id", "timestamp"]);
    expect(keys(built.data)).toEqual(keys(sample));
    expect(keys(built.data.original_outbound)).toEqual(keys(sample.original_outbound));
    expect(keys(built.data.verdicts)).toEqual(keys(sample.verdicts));
  });

  it("names every event the dispatcher delivers", () => {
    // the dispatcher's consumer has one handler per event it turns into a client webhook; email.failed is only
    // acknowledged there (it is not a client webhook)
    const consumer = eventsConsumer({} as Parameters<typeof eventsConsumer>[0]);
    const delivered = Object.keys(consumer.handlers).filter((name) => name !== "email.failed");
    expect([...WEBHOOK_EVENT_NAMES].sort()).toEqual(delivered.sort());
  });
});
