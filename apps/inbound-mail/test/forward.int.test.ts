// Real: PostgreSQL, RabbitMQ, Redis, s3rver, the provider simulator, public-api, send-worker, webhook-dispatcher
// (child processes) and inbound-mail. A reply to a real send is injected through the simulator and its webhook
// checked field by field, with both signatures verified.
import { createHmac } from "node:crypto";
import { waitFor } from "@emailsvc/testing";
import {
  hmacHex,
  inboundOf,
  inject,
  makeProject,
  sendEmail,
  type Stack,
  startReceiver,
  startStack,
} from "./harness";

jest.setTimeout(120_000);
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
      attachments: [{ filename: "../../etc/passwd", content: PDF.toString("base64"), contentType: "application/pdf" }],
    });
    expect(injected.status).toBe("delivered");
    const row = await inboundOf(stack, injected.messageId);
    expect(row).toMatchObject({ project_id: p.projectId, matched_by: "token", forward: "queued", kind: "reply" });

    const hit = await waitFor(() => receiver.hits.find((h) => h.body.includes(injected.messageId) || h.body.includes(row.id)), 20_000, "the webhook");
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
    expect(d.attachments[0].download_url).toMatch(/\/api\/inbound\/attachments\/[0-9a-f-]{36}\?expires=\d+&sig=[0-9a-f]{64}$/);
  });
});
