// Real: s3rver in-process (temp dir, random port), the simulator, a local HTTP receiver, the AWS S3 SDK.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { createS3Client, createSnsVerifier } from "@emailsvc/provider";
import S3rver from "s3rver";
import { simpleParser } from "mailparser";
import { startReceiver, startSimulator } from "./helpers";

describe("inbound injection", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sim-s3-"));
  let s3rver: S3rver;
  let s3Endpoint: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let sim: ReturnType<typeof startSimulator>;
  const verifier = createSnsVerifier({
    allowedCertHosts: /^127\.0\.0\.1$/,
    allowHttpCertUrls: true,
    topicArnAllowlist: ["arn:aws:sns:us-east-1:000000000000:ses-inbound"],
  });

  beforeAll(async () => {
    s3rver = new S3rver({ port: 0, address: "127.0.0.1", directory: dir, silent: true });
    const addr = await s3rver.run();
    s3Endpoint = `http://127.0.0.1:${addr.port}`;
    receiver = await startReceiver();
    sim = startSimulator({
      s3: { endpoint: s3Endpoint, bucket: "inbound-mail" },
      inboundNotificationUrl: receiver.url,
    });
    await sim.start();
  });
  afterAll(async () => {
    await sim.stop();
    await receiver.close();
    await s3rver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores the reply's MIME in S3 and posts a signed Received notification pointing at it", async () => {
    const res = await fetch(`${sim.url}/_sim/inbound?wait=1`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        from: "Alice <alice@example.org>",
        to: "reply+abc123@inbound.localhost",
        subject: "Re: Your order",
        text: "Thanks!",
        html: "<p>Thanks!</p>",
        inReplyTo: "<orig-1@shop.example>",
        references: ["<orig-1@shop.example>"],
        attachments: [
          {
            filename: "note.txt",
            content: Buffer.from("attached").toString("base64"),
            contentType: "text/plain",
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as any;
    expect(out).toMatchObject({
      bucketName: "inbound-mail",
      objectKey: `inbound/${out.messageId}`,
      notification: { status: "delivered" },
    });

    const s3 = createS3Client({
      region: "us-east-1",
      endpoint: s3Endpoint,
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    });
    const obj = await s3.send(new GetObjectCommand({ Bucket: "inbound-mail", Key: out.objectKey }));
    const mime = await obj.Body!.transformToString();
    s3.destroy();
    const parsed = await simpleParser(mime);
    expect(parsed.subject).toBe("Re: Your order");
    expect(parsed.inReplyTo).toBe("<orig-1@shop.example>");
    expect(parsed.text?.trim()).toBe("Thanks!");
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ["note.txt", "attached"],
    ]);

    expect(receiver.received).toHaveLength(1);
    const n = receiver.received[0]!;
    expect(n.headers["x-amz-sns-message-type"]).toBe("Notification");
    await expect(verifier.verify(n.raw)).resolves.toBeUndefined();
    const message = JSON.parse(n.body.Message);
    expect(message).toMatchObject({
      notificationType: "Received",
      mail: {
        source: "alice@example.org",
        destination: ["reply+abc123@inbound.localhost"],
        messageId: out.messageId,
      },
      receipt: { action: { type: "S3", bucketName: "inbound-mail", objectKey: out.objectKey } },
    });
  });

  it("accepts a raw MIME body as is", async () => {
    const raw = "From: bob@example.org\r\nTo: support@inbound.localhost\r\nSubject: raw in\r\n\r\nhello\r\n";
    const res = await fetch(`${sim.url}/_sim/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ raw }),
    });
    expect(res.status).toBe(202);
    const out = (await res.json()) as any;
    await sim.flushNotifications();
    const s3 = createS3Client({
      region: "us-east-1",
      endpoint: s3Endpoint,
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
    });
    const obj = await s3.send(new GetObjectCommand({ Bucket: "inbound-mail", Key: out.objectKey }));
    expect(await obj.Body!.transformToString()).toBe(raw);
    s3.destroy();
    const last = JSON.parse(receiver.received.at(-1)!.body.Message);
    expect(last.mail).toMatchObject({
      source: "bob@example.org",
      destination: ["support@inbound.localhost"],
    });
  });

  it("rejects an inbound body that is neither raw nor a message", async () => {
    const res = await fetch(`${sim.url}/_sim/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ subject: "x" }),
    });
    expect(res.status).toBe(400);
  });
});

describe("inbound injection without S3", () => {
  it("falls back to SES's SNS action: the MIME travels inline in `content`", async () => {
    const receiver = await startReceiver();
    const sim = startSimulator({ inboundNotificationUrl: receiver.url });
    await sim.start();
    try {
      const res = await fetch(`${sim.url}/_sim/inbound?wait=1`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          from: "carol@example.org",
          to: ["in@inbound.localhost"],
          subject: "inline",
          text: "hi",
        }),
      });
      const out = (await res.json()) as any;
      expect(out.notification.status).toBe("delivered");
      expect(out.objectKey).toBeUndefined();
      const message = JSON.parse(receiver.received[0]!.body.Message);
      expect(message.receipt.action).toMatchObject({ type: "SNS", encoding: "UTF8" });
      expect((await simpleParser(message.content)).subject).toBe("inline");
    } finally {
      await sim.stop();
      await receiver.close();
    }
  });
});
