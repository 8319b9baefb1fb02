// Real: PostgreSQL and RabbitMQ (own database and vhost); the app in-process through supertest. The SNS side of
// POST /api/inbound/provider, real SES samples from the shared corpus, and the routes inbound-mail serves.
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import request from "supertest";
import { publicRoutesOf } from "@emailsvc/contracts";
import { listExpressRoutes } from "@emailsvc/http";
import { createLogger } from "@emailsvc/observability";
import { readSnsTestFixtures, signSnsMessage } from "@emailsvc/provider";
import { createSimulator, type Simulator } from "@emailsvc/provider-simulator";
import type { Express } from "express";
import { ATTACHMENT_LINK_ROUTES } from "../src/attachments/attachment-link.routes";
import { createApp } from "../src/app";
import { createDeps, type Deps } from "../src/deps";
import { readReceivedNotification } from "../src/replies/domain/ses-received";
import { readEnv } from "../src/env";
import { INBOUND_PROVIDER_ROUTES } from "../src/replies/inbound-provider.routes";

const TOPIC = "arn:aws:sns:us-east-1:000000000000:ses-inbound";
const corpus = path.resolve(__dirname, "../../../../shared/corpus/ses");
const haveCorpus = fs.existsSync(corpus);
const fixtures = readSnsTestFixtures();
let deps: Deps;
let app: Express;
let sim: Simulator;

beforeAll(async () => {
  // the simulator serves the test certificate the signatures below verify against
  sim = createSimulator({ port: 0, logger: createLogger({ service: "sim", level: "silent" }) });
  await sim.start();
  deps = await createDeps(
    readEnv({
      ...process.env,
      LOG_LEVEL: "silent",
      TRACKING_SECRET: "t".repeat(32),
      SNS_CERT_HOST_PATTERN: "^127\\.0\\.0\\.1$",
      SNS_ALLOW_HTTP_CERT_URLS: "true",
      INBOUND_SNS_TOPIC_ARNS: TOPIC,
    }),
  );
  await deps.broker.ready();
  app = createApp(deps);
});
afterAll(async () => {
  await deps?.outbox.stop();
  await deps?.broker.close();
  await deps?.db.close();
  await sim?.stop();
});

const signed = (msg: Record<string, unknown>, topic = TOPIC) =>
  JSON.stringify(
    signSnsMessage(
      {
        Type: "Notification",
        MessageId: randomUUID(),
        TopicArn: topic,
        Message: JSON.stringify(msg),
        Timestamp: new Date().toISOString(),
        ...(msg.__type ? { Type: String(msg.__type) } : {}),
      },
      { privateKeyPem: fixtures.privateKeyPem, certUrl: `${sim.url}/_sim/cert.pem` },
    ),
  );
const post = (body: string) =>
  request(app).post("/api/inbound/provider").set("content-type", "text/plain; charset=UTF-8").send(body);

describe("POST /api/inbound/provider (the shared SNS receiver)", () => {
  it("stores a signed Received notification from the allowed topic before answering, once", async () => {
    const message = {
      notificationType: "Received",
      mail: { messageId: "ses-abc", source: "a@example.org", destination: ["r-abcd1234@inbound.localhost"] },
      receipt: {
        recipients: ["r-abcd1234@inbound.localhost"],
        spamVerdict: { status: "PASS" },
        virusVerdict: { status: "PASS" },
        spfVerdict: { status: "GRAY" },
        dkimVerdict: { status: "PASS" },
        dmarcVerdict: { status: "FAIL" },
        dmarcPolicy: "REJECT",
        action: { type: "S3", bucketName: "inbound-mail", objectKey: "inbound/ses-abc" },
      },
    };
    const body = signed(message);
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      messageId: "ses-abc",
      threadId: null,
      projectId: null,
      status: "queued",
    });
    const snsId = JSON.parse(body).MessageId;
    const row = (
      await deps.db.pool.query("SELECT * FROM inbound_notifications WHERE sns_message_id = $1", [snsId])
    ).rows[0];
    expect(row).toMatchObject({
      ses_message_id: "ses-abc",
      action_type: "S3",
      bucket_name: "inbound-mail",
      object_key: "inbound/ses-abc",
      recipients: ["r-abcd1234@inbound.localhost"],
      status: "received",
      verdicts: {
        spam: "PASS",
        virus: "PASS",
        spf: "GRAY",
        dkim: "PASS",
        dmarc: "FAIL",
        dmarc_policy: "reject",
      },
    });
    // the same SNS message again: nothing stored twice
    const again = await post(body);
    expect(again.body).toMatchObject({ success: true, messageId: "ses-abc", status: "queued" });
    const n = await deps.db.pool.query(
      "SELECT count(*)::int AS n FROM inbound_notifications WHERE sns_message_id = $1",
      [snsId],
    );
    expect(n.rows[0].n).toBe(1);
  });

  it("refuses a bad signature, another topic, and a certificate host outside the rule", async () => {
    const good = JSON.parse(signed({ notificationType: "Received" }));
    expect((await post(JSON.stringify({ ...good, Message: "tampered" }))).status).toBe(403);
    expect(
      (await post(signed({ notificationType: "Received" }, "arn:aws:sns:us-east-1:999999999999:evil")))
        .status,
    ).toBe(403);
    const foreignCert = signSnsMessage(
      {
        Type: "Notification",
        MessageId: randomUUID(),
        TopicArn: TOPIC,
        Message: "{}",
        Timestamp: new Date().toISOString(),
      },
      { privateKeyPem: fixtures.privateKeyPem, certUrl: "http://evil.example/cert.pem" },
    );
    expect((await post(JSON.stringify(foreignCert))).status).toBe(403);
    expect((await post("not json")).status).toBe(400);
  });

  it("confirms a subscription only to an AWS SNS host, and acknowledges an UnsubscribeConfirmation", async () => {
    const confirmation = (url: string, type = "SubscriptionConfirmation") =>
      JSON.stringify(
        signSnsMessage(
          {
            Type: type,
            MessageId: randomUUID(),
            TopicArn: TOPIC,
            Message: "You have chosen to subscribe",
            Timestamp: new Date().toISOString(),
            Token: "tok",
            SubscribeURL: url,
          },
          { privateKeyPem: fixtures.privateKeyPem, certUrl: `${sim.url}/_sim/cert.pem` },
        ),
      );
    const evil = await post(confirmation("https://evil.example/confirm"));
    expect(evil.status).toBe(400);
    expect(evil.body.error).toBe("SubscribeURL is not an AWS SNS URL");
    const unsub = await post(
      confirmation("https://sns.us-east-1.amazonaws.com/x", "UnsubscribeConfirmation"),
    );
    expect(unsub.status).toBe(200);
    expect(unsub.body.message).toBe("UnsubscribeConfirmation acknowledged");
  });

  (haveCorpus ? it : it.skip)(
    "refuses the real AWS-signed notification of the corpus (foreign topic and certificate)",
    async () => {
      const real = fs.readFileSync(path.join(corpus, "actionmailbox-sns-received-s3-action.json"), "utf8");
      expect((await post(real)).status).toBe(403);
    },
  );
});

(haveCorpus ? describe : describe.skip)("SES's own Received notifications (shared corpus)", () => {
  it("reads the S3 action, recipients and the five verdicts as SES sends them", () => {
    const real = JSON.parse(
      fs.readFileSync(path.join(corpus, "actionmailbox-sns-received-s3-action.json"), "utf8"),
    );
    expect(readReceivedNotification(real.Message)).toEqual({
      sesMessageId: "17at0jiq08p0449huhf16qsmdi6sa1ltm069t801",
      source: "chris-ortman@uiowa.edu",
      recipients: ["test@icts-oasis-aya.aws.cloud.uiowa.edu"],
      action: {
        type: "S3",
        bucketName: "yourapp-uploads20200818192940697500000001",
        objectKey: "17at0jiq08p0449huhf16qsmdi6sa1ltm069t801",
      },
      verdicts: {
        spam: "PASS",
        virus: "PASS",
        spf: "GRAY",
        dkim: "GRAY",
        dmarc: "FAIL",
        dmarc_policy: "none",
      },
    });
    const docs = fs.readFileSync(path.join(corpus, "aws-docs-received-s3-action.json"), "utf8");
    expect(readReceivedNotification(docs)).toMatchObject({
      action: { type: "S3", bucketName: "my-S3-bucket", objectKey: "\\email" },
      verdicts: { dmarc: null },
    });
    const sns = fs.readFileSync(path.join(corpus, "aws-docs-received-sns-action.json"), "utf8");
    const inline = readReceivedNotification(sns);
    expect(typeof inline === "object" && inline.action.type === "SNS" && inline.action.content).toContain(
      "Subject: Example subject",
    );
  });
});

describe("routes", () => {
  it("serves exactly the routes the public OpenAPI document lists under inbound-mail", () => {
    expect([...listExpressRoutes(app), ...INBOUND_PROVIDER_ROUTES, ...ATTACHMENT_LINK_ROUTES].sort()).toEqual(
      publicRoutesOf("inbound-mail"),
    );
  });
});
