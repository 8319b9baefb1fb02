// Real: SDK → simulator over HTTP, simulator → a local HTTP receiver, signature checks with the production
// verifier (widened explicitly to the simulator's http://127.0.0.1 certificate URL). Nothing mocked.
import net from "node:net";
import type { SESv2Client } from "@aws-sdk/client-sesv2";
import {
  createSnsVerifier,
  sendRawEmail,
  signSnsMessage,
  SnsVerificationError,
  readSnsTestFixtures,
} from "@emailsvc/provider";
import { eventOf, sesFor, startReceiver, startSimulator } from "./helpers";

const TOPIC = "arn:aws:sns:us-east-1:000000000000:ses-notifications";
const raw = (to: string) =>
  Buffer.from(
    `From: news@shop.example\r\nTo: ${to}\r\nSubject: Hi\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nbody\r\n`,
  );

describe("SES event notifications", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const sim = startSimulator();
  let ses: SESv2Client;
  const localVerifier = createSnsVerifier({
    allowedCertHosts: /^127\.0\.0\.1$/,
    allowHttpCertUrls: true,
    topicArnAllowlist: [TOPIC],
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    await sim.start();
    await fetch(`${sim.url}/_sim/config`, {
      method: "POST",
      body: JSON.stringify({ notificationUrl: receiver.url }),
    });
    ses = sesFor(sim.url);
  });
  afterAll(async () => {
    ses.destroy();
    await sim.stop();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });

  async function send(to: string[]) {
    const { messageId } = await sendRawEmail(ses, { from: "news@shop.example", to, raw: raw(to.join(", ")) });
    await sim.flushNotifications();
    return { messageId, events: receiver.received.filter((r) => eventOf(r).mail.messageId === messageId) };
  }

  it("posts Send + Bounce (Permanent/General) for bounce@simulator.amazonaws.com, and the signature verifies", async () => {
    const { messageId, events } = await send(["bounce@simulator.amazonaws.com"]);
    expect(events.map((e) => eventOf(e).eventType)).toEqual(["Send", "Bounce"]);
    const bounce = eventOf(events[1]!);
    expect(bounce.mail).toMatchObject({
      messageId,
      source: "news@shop.example",
      destination: ["bounce@simulator.amazonaws.com"],
    });
    expect(bounce.bounce).toMatchObject({
      bounceType: "Permanent",
      bounceSubType: "General",
      bouncedRecipients: [expect.objectContaining({ emailAddress: "bounce@simulator.amazonaws.com" })],
    });
    expect(typeof bounce.bounce.timestamp).toBe("string");

    const n = events[1]!;
    expect(n.headers["x-amz-sns-message-type"]).toBe("Notification");
    expect(n.headers["x-amz-sns-topic-arn"]).toBe(TOPIC);
    expect(n.headers["x-amz-sns-message-id"]).toBe(n.body.MessageId);
    expect(n.body).toMatchObject({
      Type: "Notification",
      TopicArn: TOPIC,
      SignatureVersion: "2",
      SigningCertURL: `${sim.url}/_sim/cert.pem`,
    });
    // The raw body as posted, exactly as a receiver would pass it on.
    await expect(localVerifier.verify(n.raw)).resolves.toBeUndefined();
    await expect(localVerifier.verify(events[0]!.body)).resolves.toBeUndefined();
  });

  it("fails verification for a tampered notification", async () => {
    const { events } = await send(["bounce@simulator.amazonaws.com"]);
    const tampered = {
      ...events[1]!.body,
      Message: events[1]!.body.Message.replace('"Permanent"', '"Transient"'),
    };
    await expect(localVerifier.verify(tampered)).rejects.toMatchObject({
      name: "SnsVerificationError",
      reason: "bad-signature",
    });
  });

  it("fails with the default (strict AWS) verifier because the cert URL is not on an AWS host", async () => {
    const { events } = await send(["bounce@simulator.amazonaws.com"]);
    const err = await createSnsVerifier()
      .verify(events[1]!.body)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnsVerificationError);
    expect((err as SnsVerificationError).reason).toBe("cert-url-not-allowed");
  });

  it("verifies SignatureVersion 1 against the certificate the simulator serves", async () => {
    const { privateKeyPem } = readSnsTestFixtures();
    const v1 = signSnsMessage(
      {
        Type: "Notification",
        MessageId: "m-1",
        TopicArn: TOPIC,
        Message: "{}",
        Timestamp: new Date().toISOString(),
        Subject: "s",
      },
      { privateKeyPem, certUrl: `${sim.url}/_sim/cert.pem`, signatureVersion: "1" },
    );
    await expect(localVerifier.verify(v1)).resolves.toBeUndefined();
  });

  it("maps every mailbox-simulator address to SES's outcome", async () => {
    const types = async (to: string) => (await send([to])).events.map((e) => eventOf(e).eventType);
    expect(await types("success@simulator.amazonaws.com")).toEqual(["Send", "Delivery"]);
    expect(await types("complaint@simulator.amazonaws.com")).toEqual(["Send", "Delivery", "Complaint"]);
    expect(await types("ooto@simulator.amazonaws.com")).toEqual(["Send", "Delivery"]);
    expect(await types("someone@example.org")).toEqual(["Send", "Delivery"]);

    const suppressed = (await send(["suppressionlist@simulator.amazonaws.com"])).events;
    expect(suppressed.map((e) => eventOf(e).eventType)).toEqual(["Send", "Bounce"]);
    expect(eventOf(suppressed[1]!).bounce).toMatchObject({
      bounceType: "Permanent",
      bounceSubType: "Suppressed",
    });

    const complaint = (await send(["complaint+label@simulator.amazonaws.com"])).events;
    expect(eventOf(complaint[2]!).complaint.complainedRecipients).toEqual([
      { emailAddress: "complaint+label@simulator.amazonaws.com" },
    ]);

    const mixed = (await send(["ok@example.org", "bounce@simulator.amazonaws.com"])).events.map(eventOf);
    expect(mixed.map((e) => e.eventType)).toEqual(["Send", "Delivery", "Bounce"]);
    expect(mixed[1]!.delivery.recipients).toEqual(["ok@example.org"]);
    expect(mixed[2]!.bounce.bouncedRecipients.map((r: any) => r.emailAddress)).toEqual([
      "bounce@simulator.amazonaws.com",
    ]);
  });

  it("retries while the receiver answers 503 and never delays the SendEmail answer", async () => {
    receiver.failNextRequests(2);
    const { messageId, events } = await send(["success@simulator.amazonaws.com"]);
    expect(events.map((e) => eventOf(e).eventType)).toEqual(["Send", "Delivery"]);
    const log = (await (await fetch(`${sim.url}/_sim/notifications?messageId=${messageId}`)).json()) as any;
    expect(log.notifications.map((n: any) => [n.eventType, n.status, n.attempts])).toEqual([
      ["Send", "delivered", 3],
      ["Delivery", "delivered", 1],
    ]);

    // A receiver that takes the connection and never answers: SendEmail still answers promptly. Held by its
    // notification it would wait the notification's 5 s timeout; a call itself takes ~100 ms on a loaded CI machine.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    await fetch(`${sim.url}/_sim/config`, {
      method: "POST",
      body: JSON.stringify({
        notificationUrl: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/`,
      }),
    });
    const t0 = Date.now();
    await sendRawEmail(ses, { from: "news@shop.example", to: ["x@example.org"], raw: raw("x@example.org") });
    expect(Date.now() - t0).toBeLessThan(1_000);
    // then the receiver goes away altogether: the notifications' retries find nobody and fail
    silent.close();
    for (const s of sockets) s.destroy();
    await sim.flushNotifications();
    await fetch(`${sim.url}/_sim/config`, {
      method: "POST",
      body: JSON.stringify({ notificationUrl: receiver.url }),
    });
    const stats = (await (await fetch(`${sim.url}/_sim/stats`)).json()) as any;
    expect(stats.notifications.failed).toBe(2);
  });
});
