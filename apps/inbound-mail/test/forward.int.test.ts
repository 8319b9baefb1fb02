// Real: PostgreSQL, RabbitMQ, Redis, s3rver, the provider simulator, public-api, send-worker, webhook-dispatcher
// (child processes) and inbound-mail. A reply to a real send is injected through the simulator and its webhook
// checked field by field, with both signatures verified.
import { createHmac } from "node:crypto";
import { putObject } from "@emailsvc/provider";
import { waitFor } from "@emailsvc/testing";
import { readReceivedNotification } from "../src/replies/domain/ses-received";
import { storeNotification } from "../src/replies/notifications.repo";
import {
  BUCKET,
  deliverRaw,
  hmacHex,
  INBOUND_TOPIC,
  inboundOf,
  INTERNAL_TOKEN,
  inject,
  makeProject,
  notificationOf,
  postNotification,
  receivedMessage,
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

const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

describe("the inbound webhook (spec 6.2)", () => {
  it("forwards a reply to a live send to inbound_webhook_url: every field, signed with the live key", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/live"), dev: receiver.url("/dev") });
    const sent = await sendEmail(stack, p.liveKey, p);
    expect(sent.replyTo).toContain(`<r-${sent.replyToken}@inbound.test>`);
    const injected = await inject(stack, {
      from: `Ada Lovelace <${sent.recipient}>`,
      to: `r-${sent.replyToken}@inbound.test`,
      cc: "Bob <bob@example.org>",
      subject: `Re: ${sent.subject}`,
      text: "Yes please, ship it.\n\nOn Mon, 1 Jan 2024 at 10:00, Shop <x@y.z> wrote:\n> Your order is on its way.\n",
      html: "<p>Yes please, ship it.</p><script>alert(1)</script>",
      messageId: "<reply-1@mail.example.org>",
      inReplyTo: sent.messageId,
      references: [sent.messageId],
      attachments: [
        { filename: "../../etc/passwd", content: PDF.toString("base64"), contentType: "application/pdf" },
      ],
    });
    expect(injected.status).toBe("delivered");
    const row = await inboundOf(stack, injected.messageId);
    expect(row).toMatchObject({
      project_id: p.projectId,
      matched_by: "token",
      forward: "queued",
      kind: "reply",
    });

    const hit = await waitFor(
      () => receiver.hits.find((h) => h.body.includes(injected.messageId) || h.body.includes(row.id)),
      20_000,
      "the webhook",
    );
    expect(hit.path).toBe("/live");
    expect(hit.headers["content-type"]).toBe("application/json");
    expect(hit.headers["user-agent"]).toBe("Service-Webhook/1.0");
    expect(hit.headers["x-svc-signature"]).toBe(`sha256=${hmacHex(p.liveKey, hit.body)}`);
    const id = hit.headers["webhook-id"] as string;
    const ts = hit.headers["webhook-timestamp"] as string;
    expect(hit.headers["webhook-signature"]).toBe(
      `v1,${createHmac("sha256", p.liveKey).update(`${id}.${ts}.${hit.body}`).digest("base64")}`,
    );
    const body = JSON.parse(hit.body);
    expect(Object.keys(body).sort()).toEqual(["data", "event", "is_test", "project_id", "timestamp"]);
    expect(body).toMatchObject({ event: "email.inbound", project_id: p.projectId, is_test: false });
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    const d = body.data;
    expect(d).toMatchObject({
      message_id: "<reply-1@mail.example.org>",
      thread_id: row.thread_id,
      in_reply_to: sent.messageId,
      references: [sent.messageId],
      from: { email: sent.recipient, name: "Ada Lovelace" },
      to: [{ email: `r-${sent.replyToken}@inbound.test`, name: null }],
      cc: [{ email: "bob@example.org", name: "Bob" }],
      subject: `Re: ${sent.subject}`,
      return_path_parsed: null,
      original_outbound: {
        message_id: sent.messageId,
        activity_id: sent.activityId,
        campaign_id: null,
        email_type: "transactional",
        thread_id: row.thread_id,
      },
      reply_text: "Yes please, ship it.",
      kind: "reply",
      matched_by: "token",
      suspicious: false,
      verdicts: { spam: "PASS", virus: "PASS", spf: "PASS", dkim: "PASS", dmarc: "PASS" },
    });
    expect(d.text_body).toContain("Yes please, ship it.");
    expect(d.html_body).toBe("<p>Yes please, ship it.</p><script>alert(1)</script>");
    expect(new Date(d.date).toISOString()).toBe(d.date);
    expect(d.attachments).toHaveLength(1);
    expect(d.attachments[0]).toMatchObject({
      filename: "passwd",
      content_type: "application/pdf",
      size: PDF.length,
      storage_key: `attachments/${p.projectId}/${row.id}/1-passwd`,
    });
    expect(d.attachments[0].download_url).toMatch(
      /\/api\/inbound\/attachments\/[0-9a-f-]{36}\?expires=\d+&sig=[0-9a-f]{64}$/,
    );
  });

  it("forwards a reply to a test send to inbound_webhook_url_dev, signed with the test key", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/live2"), dev: receiver.url("/dev2") });
    const sent = await sendEmail(stack, p.testKey, p);
    const injected = await inject(stack, {
      from: sent.recipient,
      to: `R-${sent.replyToken.toUpperCase()}@INBOUND.TEST`,
      subject: `Re: ${sent.subject}`,
      text: "test mode reply",
    });
    const row = await inboundOf(stack, injected.messageId);
    expect(row).toMatchObject({ matched_by: "token", is_test: true, forward: "queued" });
    const hit = await waitFor(
      () => receiver.hits.find((h) => h.body.includes(row.id)),
      20_000,
      "the webhook",
    );
    expect(hit.path).toBe("/dev2");
    expect(hit.headers["x-svc-signature"]).toBe(`sha256=${hmacHex(p.testKey, hit.body)}`);
    expect(hit.headers["x-svc-signature"]).not.toBe(`sha256=${hmacHex(p.liveKey, hit.body)}`);
    expect(JSON.parse(hit.body)).toMatchObject({
      is_test: true,
      data: { original_outbound: { activity_id: sent.activityId } },
    });
    // webhook-dispatcher records the attempt once the receiver has answered, just after the hit arrived
    const delivery = await waitFor(
      async () => {
        const r = await stack.db.pool.query(
          "SELECT kind, event, status, attempts FROM webhook_deliveries WHERE project_id = $1",
          [p.projectId],
        );
        return r.rows.some((d: { status: string }) => d.status !== "pending") ? r : undefined;
      },
      10_000,
      "the delivery recorded",
    );
    expect(delivery.rows).toEqual([
      { kind: "inbound", event: "email.inbound", status: "succeeded", attempts: 1 },
    ]);
  });

  it("stores a reply to a test send without inbound_webhook_url_dev, and sends it nowhere (no live fallback)", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/live3"), dev: null });
    const sent = await sendEmail(stack, p.testKey, p);
    const injected = await inject(stack, {
      from: sent.recipient,
      to: `r-${sent.replyToken}@inbound.test`,
      subject: "Re: x",
      text: "hi",
    });
    const row = await inboundOf(stack, injected.messageId);
    expect(row).toMatchObject({ project_id: p.projectId, is_test: true, forward: "no_url" });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.hits.filter((h) => h.path === "/live3")).toEqual([]);
    const d = await stack.db.pool.query("SELECT 1 FROM webhook_deliveries WHERE project_id = $1", [
      p.projectId,
    ]);
    expect(d.rowCount).toBe(0);
  });

  it("keeps a redelivered notification once: one stored reply, one webhook", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/live4") });
    const sent = await sendEmail(stack, p.liveKey, p);
    const injected = await inject(stack, {
      from: sent.recipient,
      to: `r-${sent.replyToken}@inbound.test`,
      subject: "Re: dup",
      text: "once",
    });
    const row = await inboundOf(stack, injected.messageId);
    await waitFor(() => receiver.hits.find((h) => h.path === "/live4"), 20_000, "the webhook");
    // SNS delivers the very same notification again (same MessageId, same signature)
    const record = stack.sim.state.notifications.find((n) => n.sesMessageId === injected.messageId)!;
    const again = await fetch(`${stack.inbound.url}/api/inbound/provider`, {
      method: "POST",
      headers: { "content-type": "text/plain; charset=UTF-8" },
      body: JSON.stringify(record.body),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({
      success: true,
      messageId: injected.messageId,
      threadId: row.thread_id,
      projectId: p.projectId,
      status: "processed",
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.hits.filter((h) => h.path === "/live4")).toHaveLength(1);
    const n = await stack.db.pool.query(
      "SELECT count(*)::int AS n FROM inbound_messages WHERE project_id = $1",
      [p.projectId],
    );
    expect(n.rows[0].n).toBe(1);
  });

  it("stores the same email delivered twice by SES (project, Message-ID, recipient) once", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/live5") });
    const sent = await sendEmail(stack, p.liveKey, p);
    const mail = {
      from: sent.recipient,
      to: `r-${sent.replyToken}@inbound.test`,
      subject: "Re: twice",
      text: "sent twice",
      messageId: "<same-mail@example.org>",
    };
    const first = await inject(stack, mail);
    await inboundOf(stack, first.messageId);
    const second = await inject(stack, mail);
    const n = await notificationOf(stack, second.messageId);
    expect(n.status).toBe("duplicate");
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.hits.filter((h) => h.path === "/live5")).toHaveLength(1);
  });

  it("answers a new notification once processed (spec 4.9): the thread and project of a reply, unmatched mail kept", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/first") });
    const sent = await sendEmail(stack, p.liveKey, p);
    const token = `r-${sent.replyToken}@inbound.test`;
    const reply = `From: ${sent.recipient}\r\nTo: ${token}\r\nSubject: Re: ${sent.subject}\r\nMessage-ID: <first-answer@example.org>\r\n\r\nGot it\r\n`;
    const res = await deliverRaw(stack, reply, [token]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      messageId: res.sesMessageId,
      threadId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: p.projectId,
      status: "processed",
    });
    // stored before the answer, under the thread it names; the webhook follows asynchronously
    const row = (
      await stack.db.pool.query(
        `SELECT m.thread_id, m.project_id, m.activity_id FROM inbound_notifications n
           JOIN inbound_messages m ON m.id = n.inbound_message_id WHERE n.ses_message_id = $1`,
        [res.sesMessageId],
      )
    ).rows[0];
    expect(row).toEqual({
      thread_id: res.body.threadId,
      project_id: p.projectId,
      activity_id: sent.activityId,
    });
    await waitFor(() => receiver.hits.find((h) => h.path === "/first"), 20_000, "the webhook");
    // the held outbox row was dropped: the consumer is not handed work already done
    const held = await stack.db.pool.query(
      "SELECT 1 FROM outbox_messages WHERE routing_key = 'provider.inbound-received' AND payload->'payload'->>'notificationId' = (SELECT id::text FROM inbound_notifications WHERE ses_message_id = $1)",
      [res.sesMessageId],
    );
    expect(held.rowCount).toBe(0);

    const raw =
      "From: x@example.org\r\nTo: nobody@inbound.test\r\nSubject: hello\r\nMessage-ID: <u1@example.org>\r\n\r\nhi\r\n";
    const unmatched = await deliverRaw(stack, raw, ["nobody@inbound.test"]);
    expect(unmatched.status).toBe(200);
    expect(unmatched.body).toEqual({
      success: true,
      messageId: unmatched.sesMessageId,
      threadId: null,
      projectId: null,
      status: "unmatched",
    });
    const stored = await inboundOf(stack, unmatched.sesMessageId, 1);
    expect(stored).toMatchObject({
      project_id: null,
      thread_id: null,
      matched_by: null,
      forward: "unmatched",
    });
  });

  it("does not forward a reply to a dashboard send (no reply token): it reached the human sender", async () => {
    const p = await makeProject(stack.db, { live: receiver.url("/live6") });
    // a platform send (x-source: platform) through the internal endpoint carries no token
    const internal = await fetch(`${stack.internalApi}/send-email`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "x-project-id": p.projectId,
        "x-source": "platform",
        "x-internal-token": INTERNAL_TOKEN,
      },
      body: JSON.stringify({
        recipient: "human@example.org",
        sender: p.sender,
        subject: "From the dashboard",
        html: "<p>hi</p>",
      }),
    });
    const body = (await internal.json()) as { activityId?: string };
    expect(internal.status).toBe(200);
    const a = await waitFor(
      async () =>
        (
          await stack.db.pool.query(
            "SELECT reply_token, message_id FROM activities WHERE id = $1 AND message_id IS NOT NULL",
            [body.activityId],
          )
        ).rows[0],
      20_000,
      "the platform send",
    );
    expect(a.reply_token).toBeNull();
    const injected = await inject(stack, {
      from: "human@example.org",
      to: "support@inbound.test",
      subject: "Re: From the dashboard",
      text: "thanks",
      inReplyTo: `<${a.message_id}>`,
    });
    const row = await inboundOf(stack, injected.messageId);
    expect(row).toMatchObject({
      project_id: p.projectId,
      matched_by: "in_reply_to",
      forward: "dashboard_send",
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.hits.filter((h) => h.path === "/live6")).toEqual([]);
  });

  it("retries a failing receiver on the schedule (6.3), logs every attempt, and redelivers on request", async () => {
    const flaky = await startReceiver([500, 503]);
    try {
      const p = await makeProject(stack.db, { live: flaky.url("/flaky") });
      const sent = await sendEmail(stack, p.liveKey, p);
      const r = await inject(stack, {
        from: sent.recipient,
        to: `r-${sent.replyToken}@inbound.test`,
        subject: "Re: retry",
        text: "x",
      });
      await inboundOf(stack, r.messageId);
      await waitFor(() => flaky.hits.length >= 3, 20_000, "three attempts");
      const d = await waitFor(
        async () =>
          (
            await stack.db.pool.query(
              "SELECT id, status, attempts FROM webhook_deliveries WHERE project_id = $1 AND status = 'succeeded'",
              [p.projectId],
            )
          ).rows[0],
        10_000,
        "the delivery to succeed",
      );
      expect(d.attempts).toBe(3);
      const attempts = await stack.db.pool.query(
        "SELECT attempt_number, status_code FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt_number",
        [d.id],
      );
      expect(attempts.rows).toEqual([
        { attempt_number: 1, status_code: 500 },
        { attempt_number: 2, status_code: 503 },
        { attempt_number: 3, status_code: 200 },
      ]);
      expect(new Set(flaky.hits.map((h) => h.body)).size).toBe(1);
      // the admin API's redelivery sends the same body again, signed again
      const res = await fetch(`${stack.internalApi}/admin/webhook-deliveries/${d.id}/redeliver`, {
        method: "POST",
        headers: { Authorization: `Bearer ${stack.env.ADMIN_TOKEN}` },
      });
      expect(res.status).toBe(200);
      await waitFor(() => flaky.hits.length >= 4, 20_000, "the redelivery");
      expect(flaky.hits[3]!.body).toBe(flaky.hits[0]!.body);
      expect(flaky.hits[3]!.headers["x-svc-signature"]).toBe(
        `sha256=${hmacHex(p.liveKey, flaky.hits[0]!.body)}`,
      );
    } finally {
      await flaky.close();
    }
  });
});

describe("the receiver's time budget (INBOUND_SYNC_BUDGET_MS)", () => {
  afterAll(async () => {
    await stack.inbound.stop();
    await stack.startInbound("in-process");
  });

  it("past its budget answers queued, counts it, and the reply is still stored once and forwarded once", async () => {
    await stack.inbound.stop();
    // 1 ms: no reply can be processed within it
    await stack.startInbound("in-process", { INBOUND_SYNC_BUDGET_MS: "1" });
    const p = await makeProject(stack.db, { live: receiver.url("/budget") });
    const sent = await sendEmail(stack, p.liveKey, p);
    const token = `r-${sent.replyToken}@inbound.test`;
    const raw = `From: ${sent.recipient}\r\nTo: ${token}\r\nSubject: Re: x\r\nMessage-ID: <budget@example.org>\r\n\r\nslow\r\n`;
    const res = await deliverRaw(stack, raw, [token]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      messageId: res.sesMessageId,
      threadId: null,
      projectId: null,
      status: "queued",
    });
    const row = await inboundOf(stack, res.sesMessageId);
    expect(row).toMatchObject({ project_id: p.projectId, activity_id: sent.activityId });
    const metrics = await (await fetch(`${stack.inbound.url}/metrics`)).text();
    expect(metrics).toMatch(/inbound_sync_deferred_total\{reason="budget"[^}]*\} 1\n/);
    // SNS asks again: now the answer names the thread
    const again = await postNotification(stack, res.message, { snsMessageId: res.snsMessageId });
    expect(again.body).toMatchObject({
      threadId: row.thread_id,
      projectId: p.projectId,
      status: "processed",
    });
    await waitFor(() => receiver.hits.find((h) => h.path === "/budget"), 20_000, "the webhook");
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.hits.filter((h) => h.path === "/budget")).toHaveLength(1);
  });

  it("a notification stored by a receiver that died before processing it is finished by the consumer after the hold", async () => {
    await stack.inbound.stop();
    await stack.startInbound("in-process", { INBOUND_SYNC_BUDGET_MS: "500" });
    const p = await makeProject(stack.db);
    const sent = await sendEmail(stack, p.liveKey, p);
    const token = `r-${sent.replyToken}@inbound.test`;
    const sesMessageId = `died${Date.now()}`;
    const objectKey = `inbound/${sesMessageId}`;
    await putObject(stack.s3Client, {
      bucket: BUCKET,
      key: objectKey,
      body: `From: ${sent.recipient}\r\nTo: ${token}\r\nSubject: Re: x\r\nMessage-ID: <died@example.org>\r\n\r\nstill here\r\n`,
    });
    const n = readReceivedNotification(JSON.stringify(receivedMessage(sesMessageId, objectKey, [token])));
    if (typeof n === "string") throw new Error(n);
    // what the receiver stores before its work: the notification and its held outbox row (1 s), then nothing
    const started = Date.now();
    const stored = await storeNotification(stack.db, `sns-${sesMessageId}`, INBOUND_TOPIC, n, 1000);
    expect(stored.inserted).toBe(true);
    const row = await inboundOf(stack, sesMessageId, 20_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(row).toMatchObject({ project_id: p.projectId, activity_id: sent.activityId, matched_by: "token" });
  });
});
