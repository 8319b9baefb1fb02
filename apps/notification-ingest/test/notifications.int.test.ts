/**
 * Real PostgreSQL (own database) and RabbitMQ (own vhost); SNS messages signed with the committed test
 * certificate, served by a local HTTP server that the verifier is explicitly allowed to fetch from.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import request from "supertest";
import {
  makeEnvelope,
  messagingTopology,
  publicRoutesOf,
  Queues,
  RoutingKeys,
  type Envelope,
} from "@emailsvc/contracts";
import { listExpressRoutes } from "@emailsvc/http";
import { signTrackedUrl, unsubscribeUrl } from "@emailsvc/content";
import { createDb, recordTrackingHits, type TrackingHit } from "@emailsvc/db";
import { createBroker, RetryableError } from "@emailsvc/messaging";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { createSnsVerifier, readSnsTestFixtures, signSnsMessage } from "@emailsvc/provider";
import { createApp } from "../src/app";
import { createGroupWriter } from "../src/infra/group-writer";
import {
  PROVIDER_WEBHOOK_ROUTES,
  providerWebhookFastPath,
} from "../src/notifications/provider-webhook.routes";
import { TRACKING_ROUTES } from "../src/tracking/tracking.routes";
import { notificationConsumer } from "../src/notifications/notification.consumer";
import type { Deps } from "../src/deps";
import { applyNotification, applyNotifications } from "../src/notifications/apply-notification";

jest.setTimeout(30_000);
const SECRET = "s".repeat(32);
const db = createDb(process.env.DATABASE_URL!, { max: 20 });
const logger = createLogger({ service: "ni-test", level: "silent" });
const broker = createBroker({
  url: process.env.RABBITMQ_URL!,
  name: "ni-test",
  topology: messagingTopology,
  logger,
});
const { certPem, privateKeyPem } = readSnsTestFixtures();
let certServer: http.Server;
let certUrl: string;
let deps: Deps;

beforeAll(async () => {
  certServer = http.createServer((_req, res) => res.end(certPem));
  await new Promise<void>((r) => certServer.listen(0, "127.0.0.1", r));
  certUrl = `http://127.0.0.1:${(certServer.address() as { port: number }).port}/cert.pem`;
  await broker.ready();
  const verifier = createSnsVerifier({ allowedCertHosts: /^127\.0\.0\.1$/, allowHttpCertUrls: true });
  deps = {
    name: "notification-ingest",
    logger,
    metrics: createMetrics("ni-test"),
    db,
    broker,
    env: { TRACKING_SECRET: SECRET } as Deps["env"],
    outbox: {
      kick: () => undefined,
      handoff: () => null,
      start: () => undefined,
      stop: async () => undefined,
    },
    hits: createGroupWriter<TrackingHit>({
      logger,
      write: (batch) => recordTrackingHits(db, batch).then(() => undefined),
    }),
    verify: (m) => verifier.verify(m),
  };
});
afterAll(async () => {
  certServer.close();
  await broker.close();
  await db.close();
});

/** `webhooks: false`: a project with no webhook URL (client events are then stored but not published). */
async function newActivity(opts: { status?: string; isTest?: boolean; webhooks?: boolean } = {}) {
  const projectId = randomUUID();
  const messageId = randomUUID();
  const activityId = randomUUID();
  const providerId = `prov-${randomUUID()}`;
  const url = opts.webhooks === false ? null : "https://hooks.example.test/events";
  await db.pool.query(
    "INSERT INTO projects (id, name, webhook_url, webhook_url_dev) VALUES ($1, 'p', $2, $2)",
    [projectId, url],
  );
  await db.pool.query(
    "INSERT INTO email_messages (id, project_id, source, from_email, subject, html) VALUES ($1, $2, 'api', 'a@b.c', 's', 'h')",
    [messageId, projectId],
  );
  await db.pool.query(
    "INSERT INTO activities (id, project_id, email_message_id, recipient, status, provider_message_id, is_test) VALUES ($1, $2, $3, $4, $5, $6, $7)",
    [
      activityId,
      projectId,
      messageId,
      `r-${activityId.slice(0, 8)}@example.com`,
      opts.status ?? "sent",
      providerId,
      opts.isTest ?? false,
    ],
  );
  return { projectId, activityId, providerId, recipient: `r-${activityId.slice(0, 8)}@example.com` };
}

const row = async (id: string) =>
  (await db.pool.query("SELECT * FROM activities WHERE id = $1", [id])).rows[0] as Record<string, unknown>;

function sesEvent(
  type: string,
  providerId: string,
  extra: Record<string, unknown> = {},
  ts = "2026-11-22T10:00:00.000Z",
) {
  const base = {
    eventType: type,
    mail: { messageId: providerId, timestamp: ts, destination: ["x@example.com"] },
  };
  const lower = type.charAt(0).toLowerCase() + type.slice(1);
  return { ...base, [lower]: { timestamp: ts, ...extra } };
}

function snsNotification(message: unknown) {
  return signSnsMessage(
    {
      Type: "Notification",
      MessageId: randomUUID(),
      TopicArn: "arn:aws:sns:us-east-1:000000000000:ses",
      Message: JSON.stringify(message),
      Timestamp: new Date().toISOString(),
    },
    { privateKeyPem, certUrl },
  );
}

describe("POST /webhooks/provider", () => {
  it("accepts a valid notification (text/plain) and queues it", async () => {
    const res = await request(createApp(deps))
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send(JSON.stringify(snsNotification(sesEvent("Delivery", "p1"))));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
  });

  it("refuses a tampered message and a certificate on a host that is not allowed", async () => {
    const app = createApp(deps);
    const msg = snsNotification(sesEvent("Delivery", "p2")) as unknown as Record<string, string>;
    const tampered = await request(app)
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send(JSON.stringify({ ...msg, Message: msg.Message!.replace("Delivery", "Bounce") }));
    expect(tampered.status).toBe(403);
    expect(tampered.body).toEqual({ success: false, error: "Invalid SNS signature" });
    const strict = { ...deps, verify: (m: Record<string, unknown>) => createSnsVerifier({}).verify(m) };
    const wrongHost = await request(createApp(strict))
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send(JSON.stringify(msg));
    expect(wrongHost.status).toBe(403);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const res = await request(createApp(deps))
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send("not json");
    expect(res).toMatchObject({ status: 400, body: { success: false, error: "Invalid JSON" } });
  });

  it("answers 413 past SNS's 256 KB and 500 when the notification cannot be queued", async () => {
    const big = await request(createApp(deps))
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send("x".repeat(300 * 1024));
    expect(big).toMatchObject({ status: 413, body: { success: false, error: "Request body too large" } });
    const down = {
      ...deps,
      broker: {
        ...broker,
        publish: async () => Promise.reject(new Error("broker down")),
      } as unknown as Deps["broker"],
    };
    const res = await request(createApp(down))
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send(JSON.stringify(snsNotification(sesEvent("Delivery", "p3"))));
    expect(res.status).toBe(500);
    expect(res.body.success).toBe(false);
  });

  it("leaves other methods and paths to Express", async () => {
    const res = await request(createApp(deps)).get("/webhooks/provider");
    expect(res.status).toBe(404);
  });

  it("confirms a subscription only through an AWS SNS SubscribeURL", async () => {
    const confirmed: string[] = [];
    const app = createApp({ ...deps });
    const sign = (url: string) =>
      signSnsMessage(
        {
          Type: "SubscriptionConfirmation",
          MessageId: randomUUID(),
          Token: "tok",
          TopicArn: "arn:aws:sns:us-east-1:0:t",
          Message: "confirm",
          SubscribeURL: url,
          Timestamp: new Date().toISOString(),
        },
        { privateKeyPem, certUrl },
      );
    const fastPath = providerWebhookFastPath({
      verify: deps.verify,
      broker,
      logger,
      confirmSubscription: async (u: string) => void confirmed.push(u),
    });
    const confirmApp = http.createServer((req, res) => {
      if (!fastPath(req, res)) res.writeHead(404).end();
    });
    const good = await request(confirmApp)
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send(
        JSON.stringify(sign("https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=tok")),
      );
    expect(good.status).toBe(200);
    expect(confirmed).toEqual(["https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=tok"]);
    const evil = await request(confirmApp)
      .post("/webhooks/provider")
      .set("Content-Type", "text/plain")
      .send(JSON.stringify(sign("https://evil.example.com/confirm")));
    expect(evil.status).toBe(400);
    expect(confirmed).toHaveLength(1);
    void app;
  });
});

describe("notification processing (spec 4.9 mapping)", () => {
  it.each([
    ["Send", "sent", "sent", null],
    ["Delivery", "delivered", "delivered", "delivered_at"],
    ["Bounce", "bounce", "bounced", "bounced_at"],
    ["Complaint", "complaint", "complained", "complained_at"],
    ["Reject", "reject", "sent", null],
    ["DeliveryDelay", "delivery_delay", "sent", null],
  ])("%s → event %s, status %s", async (type, stored, status, at) => {
    const a = await newActivity();
    const extra =
      type === "Bounce"
        ? {
            bounceType: "Permanent",
            bounceSubType: "General",
            bouncedRecipients: [{ emailAddress: a.recipient }],
          }
        : {};
    expect(await applyNotification(db, randomUUID(), sesEvent(type, a.providerId, extra))).toBe("applied");
    const r = await row(a.activityId);
    expect(r.status).toBe(status);
    if (at) expect((r[at] as Date).toISOString()).toBe("2026-11-22T10:00:00.000Z");
    const ev = await db.pool.query("SELECT type FROM email_events WHERE activity_id = $1", [a.activityId]);
    expect(ev.rows.map((e) => e.type)).toEqual([stored]);
    const outbox = await db.pool.query(
      "SELECT routing_key FROM outbox_messages WHERE payload->'payload'->>'activityId' = $1",
      [a.activityId],
    );
    const expectedEvent = {
      Send: [],
      Delivery: ["email.delivered"],
      Bounce: ["email.bounced"],
      Complaint: ["email.complained"],
      Reject: ["email.rejected"],
      DeliveryDelay: ["email.delivery_delayed"],
    }[type];
    expect(outbox.rows.map((o) => o.routing_key)).toEqual(expectedEvent);
  });

  it("stores the event of a project with no webhook URL for the send's mode, and publishes nothing for it", async () => {
    const none = await newActivity({ webhooks: false });
    const liveOnly = await newActivity({ isTest: true });
    await db.pool.query("UPDATE projects SET webhook_url_dev = '' WHERE id = $1", [liveOnly.projectId]);
    for (const a of [none, liveOnly]) {
      expect(await applyNotification(db, randomUUID(), sesEvent("Delivery", a.providerId))).toBe("applied");
      expect(await row(a.activityId)).toMatchObject({ status: "delivered" });
      const stored = await db.pool.query("SELECT type FROM email_events WHERE activity_id = $1", [
        a.activityId,
      ]);
      expect(stored.rows.map((e) => e.type)).toEqual(["delivered"]);
    }
    // tracking hits likewise: every hit is an event record, no client event without a URL
    expect(
      await recordTrackingHits(db, [{ activityId: none.activityId, kind: "open", at: new Date() }]),
    ).toBe(0);
    expect(
      (
        await db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1", [
          none.activityId,
        ])
      ).rows[0].n,
    ).toBe(2);
    const published = await db.pool.query(
      "SELECT 1 FROM outbox_messages WHERE payload->'payload'->>'activityId' = ANY($1::text[])",
      [[none.activityId, liveOnly.activityId]],
    );
    expect(published.rowCount).toBe(0);
  });

  it("de-duplicates a redelivered notification by SNS MessageId", async () => {
    const a = await newActivity();
    const id = randomUUID();
    expect(await applyNotification(db, id, sesEvent("Delivery", a.providerId))).toBe("applied");
    expect(await applyNotification(db, id, sesEvent("Delivery", a.providerId))).toBe("duplicate");
    expect(
      (
        await db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1", [
          a.activityId,
        ])
      ).rows[0].n,
    ).toBe(1);
  });

  it("moves statuses only forward: a late Delivery never overwrites opened", async () => {
    const a = await newActivity({ status: "opened" });
    await applyNotification(db, randomUUID(), sesEvent("Delivery", a.providerId));
    const r = await row(a.activityId);
    expect(r.status).toBe("opened");
    expect(r.delivered_at).not.toBeNull();
    const b = await newActivity();
    await applyNotification(db, randomUUID(), sesEvent("Bounce", b.providerId, { bounceType: "Permanent" }));
    await applyNotification(db, randomUUID(), sesEvent("Delivery", b.providerId));
    expect((await row(b.activityId)).status).toBe("bounced");
  });

  it("matches the recipients a notification names case-insensitively to the activity's address as sent", async () => {
    // activities keep the client's spelling (RFC 5321 2.4); a provider may name the address in another case
    const a = await newActivity();
    await db.pool.query("UPDATE activities SET recipient = 'Ann.Case+Tag@Example.org' WHERE id = $1", [
      a.activityId,
    ]);
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("Bounce", a.providerId, {
        bounceType: "Permanent",
        bouncedRecipients: [{ emailAddress: '"Ann" <ANN.CASE+tag@example.ORG>' }],
      }),
    );
    expect((await row(a.activityId)).status).toBe("bounced");
    const r = await db.pool.query("SELECT email FROM suppressions WHERE project_id = $1", [a.projectId]);
    // the suppression key is the lower-cased address, which public-api compares lower-cased forms against
    expect(r.rows.map((x) => x.email)).toEqual(["ann.case+tag@example.org"]);
    // …while a notification naming only someone else leaves the activity alone
    const b = await newActivity();
    await db.pool.query("UPDATE activities SET recipient = 'Bo.Case@Example.org' WHERE id = $1", [
      b.activityId,
    ]);
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("Bounce", b.providerId, {
        bounceType: "Permanent",
        bouncedRecipients: [{ emailAddress: "cc.person@example.org" }],
      }),
    );
    expect((await row(b.activityId)).status).toBe("sent");
  });

  it("applies a bounce SES names in punycode to an internationalised recipient, and suppresses it as sent to", async () => {
    const a = await newActivity();
    await db.pool.query("UPDATE activities SET recipient = 'idn@bücher.example' WHERE id = $1", [
      a.activityId,
    ]);
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("Bounce", a.providerId, {
        bounceType: "Permanent",
        bouncedRecipients: [{ emailAddress: "idn@xn--bcher-kva.example" }],
      }),
    );
    expect((await row(a.activityId)).status).toBe("bounced");
    const r = await db.pool.query(
      "SELECT email FROM suppressions WHERE project_id = $1 AND reason = 'bounce' ORDER BY email",
      [a.projectId],
    );
    expect(r.rows.map((x) => x.email)).toEqual(["idn@bücher.example", "idn@xn--bcher-kva.example"]);
  });

  it("suppresses hard bounces and complaints, not soft bounces", async () => {
    const hard = await newActivity();
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("Bounce", hard.providerId, { bounceType: "Permanent" }),
    );
    const soft = await newActivity();
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("Bounce", soft.providerId, { bounceType: "Transient" }),
    );
    const complaint = await newActivity();
    await applyNotification(db, randomUUID(), sesEvent("Complaint", complaint.providerId));
    const s = async (a: { projectId: string; recipient: string }) =>
      (
        await db.pool.query("SELECT reason FROM suppressions WHERE project_id = $1 AND email = $2", [
          a.projectId,
          a.recipient,
        ])
      ).rows[0]?.reason;
    expect(await s(hard)).toBe("bounce");
    expect(await s(soft)).toBeUndefined();
    expect((await row(soft.activityId)).status).toBe("bounced");
    expect(await s(complaint)).toBe("complaint");
  });

  it("a bounce or complaint of a cc / bcc address suppresses that address, not the recipient, and moves nothing", async () => {
    const a = await newActivity({ status: "delivered" });
    const cc = `cc-${a.activityId.slice(0, 8)}@example.com`;
    const bcc = `bcc-${a.activityId.slice(0, 8)}@example.com`;
    const bounce = sesEvent("Bounce", a.providerId, {
      bounceType: "Permanent",
      bouncedRecipients: [{ emailAddress: cc.toUpperCase() }],
    });
    expect(await applyNotification(db, randomUUID(), bounce)).toBe("applied");
    const complaint = sesEvent("Complaint", a.providerId, {
      complainedRecipients: [{ emailAddress: `"B" <${bcc}>` }],
    });
    expect(await applyNotification(db, randomUUID(), complaint)).toBe("applied");
    const r = await row(a.activityId);
    expect(r).toMatchObject({
      status: "delivered",
      bounced_at: null,
      complained_at: null,
      bounce_type: null,
    });
    const sup = await db.pool.query(
      "SELECT email, reason FROM suppressions WHERE project_id = $1 ORDER BY email",
      [a.projectId],
    );
    expect(sup.rows).toEqual([
      { email: bcc, reason: "complaint" },
      { email: cc, reason: "bounce" },
    ]);
    // both are recorded on the email's history; no client event claims the recipient bounced or complained
    const ev = await db.pool.query(
      "SELECT type FROM email_events WHERE activity_id = $1 ORDER BY created_at",
      [a.activityId],
    );
    expect(ev.rows.map((e) => e.type).sort()).toEqual(["bounce", "complaint"]);
    const outbox = await db.pool.query(
      "SELECT 1 FROM outbox_messages WHERE payload->'payload'->>'activityId' = $1",
      [a.activityId],
    );
    expect(outbox.rowCount).toBe(0);

    // A DeliveryDelay of the cc alone is recorded, but no client event says the recipient's email is delayed.
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("DeliveryDelay", a.providerId, {
        delayType: "MailboxFull",
        delayedRecipients: [{ emailAddress: cc }],
      }),
    );
    expect(
      (
        await db.pool.query("SELECT 1 FROM outbox_messages WHERE payload->'payload'->>'activityId' = $1", [
          a.activityId,
        ])
      ).rowCount,
    ).toBe(0);

    // A Delivery that names only the cc does not mark the recipient delivered; one naming the recipient does.
    const b = await newActivity();
    await applyNotification(db, randomUUID(), sesEvent("Delivery", b.providerId, { recipients: [cc] }));
    expect((await row(b.activityId)).status).toBe("sent");
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("Delivery", b.providerId, { recipients: [cc, b.recipient] }),
    );
    expect((await row(b.activityId)).status).toBe("delivered");
  });

  it("matches by the activity_id tag when the provider id is not stored yet, and settles a `sending` activity", async () => {
    const a = await newActivity({ status: "sending" });
    await db.pool.query("UPDATE activities SET provider_message_id = NULL WHERE id = $1", [a.activityId]);
    const ev = {
      eventType: "Send",
      mail: {
        messageId: "prov-new",
        timestamp: "2026-11-22T10:00:00.000Z",
        tags: { activity_id: [a.activityId] },
      },
      send: {},
    };
    expect(await applyNotification(db, randomUUID(), ev)).toBe("applied");
    expect(await row(a.activityId)).toMatchObject({ status: "sent", provider_message_id: "prov-new" });
  });

  it("a Send notification settles an activity failed on a provider timeout (no provider id): it was sent", async () => {
    const a = await newActivity({ status: "failed" });
    await db.pool.query(
      "UPDATE activities SET provider_message_id = NULL, failed_at = now(), failure_reason = 'request timeout' WHERE id = $1",
      [a.activityId],
    );
    const ev = {
      eventType: "Send",
      mail: {
        messageId: "prov-late",
        timestamp: "2026-11-22T10:00:00.000Z",
        tags: { activity_id: [a.activityId] },
      },
      send: {},
    };
    expect(await applyNotification(db, randomUUID(), ev)).toBe("applied");
    expect(await row(a.activityId)).toMatchObject({ status: "sent", provider_message_id: "prov-late" });
    const r = await db.pool.query("SELECT failed_at, failure_reason FROM activities WHERE id = $1", [
      a.activityId,
    ]);
    expect(r.rows[0]).toEqual({ failed_at: null, failure_reason: null });
    await applyNotification(
      db,
      randomUUID(),
      sesEvent("Delivery", "prov-late", { recipients: [a.recipient] }),
    );
    expect((await row(a.activityId)).status).toBe("delivered");
  });

  it("a tag naming an activity that SES gave another message id reaches nothing (activity ids are public)", async () => {
    const a = await newActivity({ status: "delivered" });
    const forged = {
      eventType: "Complaint",
      mail: {
        messageId: "not-a-real-ses-id",
        timestamp: "2026-11-22T10:00:00.000Z",
        tags: { activity_id: [a.activityId] },
      },
      complaint: { complainedRecipients: [{ emailAddress: a.recipient }] },
    };
    expect(await applyNotification(db, randomUUID(), forged)).toBe("unmatched");
    expect((await row(a.activityId)).status).toBe("delivered");
    expect(
      (
        await db.pool.query("SELECT count(*)::int AS n FROM suppressions WHERE source_activity_id = $1", [
          a.activityId,
        ])
      ).rows[0].n,
    ).toBe(0);
  });

  it("drops a tagged notification its activity can never match, and retries an untagged unknown one", async () => {
    // Our sends are stored and tagged before SES sees them, and a tagged activity without a provider id matches by
    // the tag: a tag that matches nothing now never will (another installation's send, a superseded copy).
    // Retried, each came back six times over six minutes and then sat in the parking queue.
    const handle = notificationConsumer({ db, logger, kickOutbox: () => undefined }).handle;
    const envelope = (event: unknown) =>
      makeEnvelope(
        RoutingKeys.providerNotification,
        { notificationId: randomUUID(), message: JSON.stringify(event) },
        { projectId: null },
      );
    const elsewhere = sesEvent("Delivery", "prov-other-installation");
    const tagged = { ...elsewhere, mail: { ...elsewhere.mail, tags: { activity_id: [randomUUID()] } } };
    const ctx = { attempt: 1 } as Parameters<typeof handle>[1];
    await expect(handle(envelope(tagged), ctx)).resolves.toBeUndefined();
    await expect(handle(envelope(sesEvent("Delivery", "prov-not-recorded-yet")), ctx)).rejects.toThrow(
      RetryableError,
    );
  });

  it("applies a batch in one statement: one activity at a time, duplicates, unknown ids and ignored types", async () => {
    const a = await newActivity({ status: "sending" });
    const b = await newActivity();
    const c = await newActivity();
    const sameRecipient = await newActivity();
    await db.pool.query("UPDATE activities SET project_id = $1, recipient = $2 WHERE id = $3", [
      c.projectId,
      c.recipient.toUpperCase(),
      sameRecipient.activityId,
    ]);
    const dup = randomUUID();
    const results = await applyNotifications(db, [
      { snsMessageId: randomUUID(), event: sesEvent("Send", a.providerId) },
      { snsMessageId: randomUUID(), event: sesEvent("Delivery", a.providerId) },
      { snsMessageId: dup, event: sesEvent("Delivery", b.providerId) },
      { snsMessageId: dup, event: sesEvent("Delivery", b.providerId) },
      { snsMessageId: randomUUID(), event: sesEvent("Delivery", "prov-unknown") },
      { snsMessageId: randomUUID(), event: sesEvent("Open", b.providerId) },
      { snsMessageId: randomUUID(), event: sesEvent("Bounce", c.providerId, { bounceType: "Permanent" }) },
      {
        snsMessageId: randomUUID(),
        event: sesEvent("Bounce", sameRecipient.providerId, { bounceType: "Permanent" }),
      },
    ]);
    expect(results).toEqual([
      "applied",
      "deferred",
      "applied",
      "deferred",
      "unknown-activity",
      "ignored",
      "applied",
      "applied",
    ]);
    expect((await row(a.activityId)).status).toBe("sent");
    expect((await row(b.activityId)).status).toBe("delivered");
    // The deferred ones, in the next batch: the Delivery applies after the Send, the repeat is a duplicate.
    expect(
      await applyNotifications(db, [
        { snsMessageId: randomUUID(), event: sesEvent("Delivery", a.providerId) },
        { snsMessageId: dup, event: sesEvent("Delivery", b.providerId) },
      ]),
    ).toEqual(["applied", "duplicate"]);
    expect((await row(a.activityId)).status).toBe("delivered");
    const events = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM email_events WHERE activity_id = ANY($1::uuid[])",
      [[a.activityId, b.activityId, c.activityId, sameRecipient.activityId]],
    );
    expect(events.rows[0]!.n).toBe(5);
    const sup = await db.pool.query("SELECT email, reason FROM suppressions WHERE project_id = $1", [
      c.projectId,
    ]);
    expect(sup.rows).toEqual([{ email: c.recipient, reason: "bounce" }]);
  });

  it("a handler whose notification was deferred by its batch applies it in a later one", async () => {
    const first = await newActivity();
    const a = await newActivity({ status: "sending" });
    let kicks = 0;
    const consumer = notificationConsumer({ db, logger, kickOutbox: () => void kicks++ });
    const ctx = { attempt: 1, redelivered: false, headers: {}, routingKey: Queues.notificationIngest };
    const handle = (e: Envelope) => consumer.handle(e, ctx);
    const envelope = (event: unknown) =>
      makeEnvelope(
        RoutingKeys.providerNotification,
        { notificationId: randomUUID(), message: JSON.stringify(event) },
        { projectId: null },
      );
    // The first runs alone; the Send and the Delivery of `a` gather into the next batch, where the Delivery is
    // deferred, and its handler submits it again.
    await Promise.all([
      handle(envelope(sesEvent("Delivery", first.providerId))),
      handle(envelope(sesEvent("Send", a.providerId))),
      handle(envelope(sesEvent("Delivery", a.providerId))),
    ]);
    expect((await row(a.activityId)).status).toBe("delivered");
    const types = await db.pool.query("SELECT type FROM email_events WHERE activity_id = $1 ORDER BY type", [
      a.activityId,
    ]);
    expect(types.rows.map((r) => r.type)).toEqual(["delivered", "sent"]);
    // The relay is kicked once per batch that wrote client events: the Send has none, so its batch does not kick.
    expect(kicks).toBe(2);
  });

  it("applies deliveries taken from the queue together and acks each of them", async () => {
    const acts = await Promise.all(Array.from({ length: 30 }, () => newActivity()));
    const consumer = await broker.consume(notificationConsumer({ db, logger, kickOutbox: () => undefined }), {
      prefetch: 20,
    });
    try {
      const app = createApp(deps);
      await Promise.all(
        acts.map((a) =>
          request(app)
            .post("/webhooks/provider")
            .set("Content-Type", "text/plain")
            .send(JSON.stringify(snsNotification(sesEvent("Delivery", a.providerId)))),
        ),
      );
      const delivered = async () =>
        (
          await db.pool.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM activities WHERE id = ANY($1::uuid[]) AND status = 'delivered'",
            [acts.map((a) => a.activityId)],
          )
        ).rows[0]!.n;
      for (let i = 0; i < 100 && (await delivered()) < acts.length; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await delivered()).toBe(acts.length);
    } finally {
      await consumer.close();
    }
  });

  it("is consumed from the queue end to end", async () => {
    const a = await newActivity();
    const consumer = await broker.consume(notificationConsumer({ db, logger, kickOutbox: () => undefined }), {
      prefetch: 20,
    });
    try {
      await request(createApp(deps))
        .post("/webhooks/provider")
        .set("Content-Type", "text/plain")
        .send(JSON.stringify(snsNotification(sesEvent("Delivery", a.providerId))));
      for (let i = 0; i < 100 && (await row(a.activityId)).status !== "delivered"; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect((await row(a.activityId)).status).toBe("delivered");
    } finally {
      await consumer.close();
    }
  });
});

describe("tracking", () => {
  const waitRecorded = () => new Promise((r) => setTimeout(r, 300));

  it("answers the pixel with no-cache headers, records every hit, sets opened_first_at once under 50 concurrent hits", async () => {
    const a = await newActivity({ status: "delivered" });
    const app = createApp(deps);
    const hits = await Promise.all(
      Array.from({ length: 50 }, () => request(app).get(`/t/o/${a.activityId}`)),
    );
    expect(hits.every((h) => h.status === 200 && h.headers["content-type"] === "image/gif")).toBe(true);
    expect(hits[0]!.headers["cache-control"]).toContain("no-cache");
    for (let i = 0; i < 50; i++) {
      const n = (
        await db.pool.query(
          "SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1 AND type = 'open'",
          [a.activityId],
        )
      ).rows[0].n;
      if (n === 50) break;
      await waitRecorded();
    }
    const events = await db.pool.query(
      "SELECT occurred_at FROM email_events WHERE activity_id = $1 AND type = 'open' ORDER BY occurred_at",
      [a.activityId],
    );
    expect(events.rowCount).toBe(50);
    const r = await row(a.activityId);
    expect(r.status).toBe("opened");
    // set by exactly one of the hits, and never moved by later ones
    const first = (r.opened_first_at as Date).getTime();
    expect(events.rows.map((e) => (e.occurred_at as Date).getTime())).toContain(first);
    await request(app).get(`/t/o/${a.activityId}`);
    await waitRecorded();
    expect(((await row(a.activityId)).opened_first_at as Date).getTime()).toBe(first);
  });

  it("records a batch in one statement: per-hit events, first-hit times, the implied open, unknown ids skipped", async () => {
    const a = await newActivity({ status: "delivered" });
    const unknown = randomUUID();
    const t = (ms: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0, ms));
    const url = "https://shop.example/x";
    const queued = await recordTrackingHits(db, [
      { activityId: a.activityId, kind: "click", url, at: t(1) },
      { activityId: unknown, kind: "open", at: t(2) },
      { activityId: a.activityId, kind: "open", at: t(3) },
      { activityId: a.activityId, kind: "click", url, at: t(4) },
    ]);
    // the first click implies an open; the later click does not (an open is recorded by then)
    const events = await db.pool.query(
      "SELECT type, occurred_at FROM email_events WHERE activity_id = $1 ORDER BY occurred_at, type DESC",
      [a.activityId],
    );
    expect(events.rows.map((e) => [e.type, (e.occurred_at as Date).getTime()])).toEqual([
      ["open", t(1).getTime()],
      ["click", t(1).getTime()],
      ["open", t(3).getTime()],
      ["click", t(4).getTime()],
    ]);
    expect(queued).toBe(4);
    const r = await row(a.activityId);
    expect(r.status).toBe("clicked");
    expect((r.opened_first_at as Date).getTime()).toBe(t(1).getTime());
    expect((r.clicked_first_at as Date).getTime()).toBe(t(1).getTime());
    expect(
      (await db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1", [unknown]))
        .rows[0].n,
    ).toBe(0);
    // a later batch moves neither first-hit time
    await recordTrackingHits(db, [{ activityId: a.activityId, kind: "click", url, at: t(9) }]);
    const again = await row(a.activityId);
    expect((again.clicked_first_at as Date).getTime()).toBe(t(1).getTime());
    expect((again.opened_first_at as Date).getTime()).toBe(t(1).getTime());
  });

  it("records nothing for an email the provider has not accepted (yet); counts hits once it is sent", async () => {
    const t = (ms: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0, ms));
    const events = async (id: string) =>
      (await db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1", [id]))
        .rows[0].n as number;
    for (const status of ["scheduled", "queued", "sending", "cancelled", "failed"]) {
      const a = await newActivity({ status });
      expect(
        await recordTrackingHits(db, [
          { activityId: a.activityId, kind: "click", url: "https://x.example/", at: t(1) },
        ]),
      ).toBe(0);
      const r = await row(a.activityId);
      expect({
        status,
        events: await events(a.activityId),
        opened: r.opened_first_at,
        clicked: r.clicked_first_at,
      }).toEqual({ status, events: 0, opened: null, clicked: null });
      // once sent, the next hit is its first open
      await db.pool.query("UPDATE activities SET status = 'delivered' WHERE id = $1", [a.activityId]);
      await recordTrackingHits(db, [{ activityId: a.activityId, kind: "open", at: t(3) }]);
      const after = await row(a.activityId);
      expect([after.status, (after.opened_first_at as Date).getTime()]).toEqual(["opened", t(3).getTime()]);
    }
  });

  it("counts a GET only: a HEAD of the pixel or of a click link gets the same answer and records nothing", async () => {
    const a = await newActivity({ status: "delivered" });
    const app = createApp(deps);
    const url = "https://shop.example/head";
    const link = `/t/c/${a.activityId}?url=${encodeURIComponent(url)}&sig=${signTrackedUrl(SECRET, a.activityId, url)}`;
    expect((await request(app).head(`/t/o/${a.activityId}`)).status).toBe(200);
    expect((await request(app).head(link)).status).toBe(302);
    await waitRecorded();
    const n = async () =>
      (
        await db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1", [
          a.activityId,
        ])
      ).rows[0].n as number;
    expect(await n()).toBe(0);
    expect((await row(a.activityId)).status).toBe("delivered");
    await request(app).get(link);
    await waitRecorded();
    expect(await n()).toBe(2); // the click and the open it implies
  });

  it("answers the pixel for an unknown id and records nothing", async () => {
    const id = randomUUID();
    const res = await request(createApp(deps)).get(`/t/o/${id}`);
    expect(res.status).toBe(200);
    await waitRecorded();
    expect(
      (await db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1", [id]))
        .rows[0].n,
    ).toBe(0);
  });

  it("redirects a signed click, counts it as an open when none was recorded, and refuses unsigned URLs", async () => {
    const a = await newActivity({ status: "delivered" });
    const app = createApp(deps);
    const url = "https://shop.example/p?a=1&b=2";
    const sig = signTrackedUrl(SECRET, a.activityId, url);
    const ok = await request(app).get(`/t/c/${a.activityId}`).query({ url, sig });
    expect(ok.status).toBe(302);
    expect(ok.headers.location).toBe(url);
    const unsigned = await request(app).get(`/t/c/${a.activityId}`).query({ url });
    expect(unsigned.status).toBe(400);
    const forged = await request(app)
      .get(`/t/c/${a.activityId}`)
      .query({ url: "https://evil.example/", sig });
    expect(forged.status).toBe(400);
    await waitRecorded();
    const r = await row(a.activityId);
    expect(r.status).toBe("clicked");
    expect(r.clicked_first_at).not.toBeNull();
    expect(r.opened_first_at).not.toBeNull();
    const types = (
      await db.pool.query("SELECT type FROM email_events WHERE activity_id = $1 ORDER BY type", [
        a.activityId,
      ])
    ).rows.map((e) => e.type);
    expect(types).toEqual(["click", "open"]);
    // The client events: email.opened, then email.clicked with the URL, each naming its own event record.
    const outbox = await db.pool.query(
      `SELECT o.routing_key, o.payload, e.type AS event_type FROM outbox_messages o
         JOIN email_events e ON e.id::text = o.payload->'payload'->>'eventRecordId'
        WHERE o.payload->'payload'->>'activityId' = $1 ORDER BY o.routing_key DESC`,
      [a.activityId],
    );
    expect(outbox.rows.map((o) => [o.routing_key, o.event_type])).toEqual([
      ["email.opened", "open"],
      ["email.clicked", "click"],
    ]);
    for (const o of outbox.rows) {
      expect(o.payload).toMatchObject({
        type: o.routing_key,
        projectId: a.projectId,
        payload: { activityId: a.activityId, projectId: a.projectId, isTest: false },
      });
    }
    expect(outbox.rows[1].payload.payload.details).toEqual({ url });
    expect(outbox.rows[0].payload.payload.details).toBeUndefined();
  });
});

describe("unsubscribe link (bulk mail's List-Unsubscribe and footer)", () => {
  const suppressed = async (projectId: string) =>
    (
      await db.pool.query(
        "SELECT email, reason, source_activity_id FROM suppressions WHERE project_id = $1",
        [projectId],
      )
    ).rows;

  it("GET only asks; the one-click POST suppresses the recipient as unsubscribed, once", async () => {
    const a = await newActivity({ status: "delivered" });
    const app = createApp(deps);
    const u = new URL(unsubscribeUrl("http://x", SECRET, a.activityId));
    const link = u.pathname + u.search;

    const ask = await request(app).get(link);
    expect(ask.status).toBe(200);
    expect(ask.headers["content-type"]).toMatch(/^text\/html/);
    expect(ask.text).toContain(`Stop sending these emails to ${a.recipient}?`);
    expect(ask.text).toContain('<form method="post">');
    expect((await request(app).head(link)).status).toBe(200);
    expect(await suppressed(a.projectId)).toEqual([]); // a GET (a link scanner) unsubscribes nobody

    // RFC 8058: what a mailbox provider's unsubscribe button sends
    const post = await request(app)
      .post(link)
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send("List-Unsubscribe=One-Click");
    expect(post.status).toBe(200);
    expect(post.text).toContain("You are unsubscribed");
    expect(await suppressed(a.projectId)).toEqual([
      { email: a.recipient, reason: "unsubscribed", source_activity_id: a.activityId },
    ]);
    expect((await request(app).post(link)).status).toBe(200); // again: nothing more
    expect(await suppressed(a.projectId)).toHaveLength(1);
    expect((await request(app).get(link)).text).toContain("You are unsubscribed");
  });

  it("a link we did not sign changes nothing: 400 page; another method 405", async () => {
    const a = await newActivity({ status: "delivered" });
    const other = await newActivity({ status: "delivered" });
    const app = createApp(deps);
    const otherSig = new URL(unsubscribeUrl("http://x", SECRET, other.activityId)).searchParams.get("sig");
    for (const link of [
      `/t/u/${a.activityId}`,
      `/t/u/${a.activityId}?sig=${otherSig}`,
      `/t/u/${a.activityId}?sig=${otherSig}&sig=x`,
      `/t/u/not-an-id?sig=${otherSig}`,
    ]) {
      expect((await request(app).post(link)).status).toBe(400);
      expect((await request(app).get(link)).status).toBe(400);
    }
    expect(await suppressed(a.projectId)).toEqual([]);
    const put = await request(app).put(`/t/u/${a.activityId}`);
    expect([put.status, put.headers.allow]).toEqual([405, "GET, HEAD, POST"]);
  });
});

describe("route coverage against the public OpenAPI document", () => {
  it("serves exactly the routes the document lists under notification-ingest, fast paths included", async () => {
    const app = createApp(deps);
    const fast = [...TRACKING_ROUTES, ...PROVIDER_WEBHOOK_ROUTES];
    expect([...listExpressRoutes(app), ...fast].sort()).toEqual(publicRoutesOf("notification-ingest"));
    // The fast paths are declared, not discovered: each must really answer (not the 404 fallback).
    for (const route of fast) {
      const [method, path] = route.split(" ") as [string, string];
      const target = path.replace(":id", randomUUID());
      const res =
        method === "POST"
          ? await request(app).post(target).set("Content-Type", "text/plain").send("{}")
          : await request(app).get(target);
      expect(res.status).not.toBe(404);
    }
  });
});
