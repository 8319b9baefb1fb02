// Real: PostgreSQL, RabbitMQ, Redis, s3rver, the provider simulator, public-api, send-worker, webhook-dispatcher
// and inbound-mail. Replies as Gmail, Outlook, Apple Mail and Thunderbird write them, to a real send.
import {
  appleMailReply,
  gmailReply,
  outlookReply,
  thunderbirdReply,
  type Original,
} from "./fixtures/clients";
import { deliverRaw, inboundOf, makeProject, sendEmail, type Stack, startStack } from "./harness";

jest.setTimeout(240_000);
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const clients: [string, (o: Original, reply: string) => string, string][] = [
  ["Gmail", gmailReply, "Great, thanks for the quick shipping!"],
  ["Outlook", outlookReply, "Thanks, received it today."],
  ["Apple Mail", appleMailReply, "Merci beaucoup, ça marche très bien !"],
  ["Thunderbird", thunderbirdReply, "Danke, alles angekommen."],
];

describe.each(clients)("a %s reply", (_client, make, reply) => {
  it("is threaded by its token, its reply text stripped of the quote", async () => {
    const p = await makeProject(stack.db);
    const sent = await sendEmail(stack, p.liveKey, p);
    const token = `r-${sent.replyToken}@inbound.test`;
    const o = {
      messageId: sent.messageId,
      subject: sent.subject,
      recipient: sent.recipient,
      sender: p.sender,
      to: token,
    };
    const r = await deliverRaw(stack, make(o, reply), [token]);
    const row = await inboundOf(stack, r.sesMessageId);
    expect(row).toMatchObject({
      matched_by: "token",
      activity_id: sent.activityId,
      kind: "reply",
      reply_text: reply,
    });
    expect(row.subject).toMatch(new RegExp(`^R[eE]: ${sent.subject}$`));
    const m = (
      await stack.db.pool.query(
        'SELECT in_reply_to, "references", text_body FROM inbound_messages WHERE id = $1',
        [row.id],
      )
    ).rows[0];
    expect(m.in_reply_to).toBe(sent.messageId);
    expect(m.references).toEqual([sent.messageId]);
    expect(m.text_body).toContain(reply);
  });

  it("is threaded by In-Reply-To when it reaches another of our addresses", async () => {
    const p = await makeProject(stack.db);
    const sent = await sendEmail(stack, p.liveKey, p);
    const o = {
      messageId: sent.messageId,
      subject: sent.subject,
      recipient: sent.recipient,
      sender: p.sender,
      to: "help@inbound.test",
    };
    const r = await deliverRaw(stack, make(o, reply), ["help@inbound.test"]);
    expect(await inboundOf(stack, r.sesMessageId)).toMatchObject({
      matched_by: "in_reply_to",
      activity_id: sent.activityId,
      reply_text: reply,
    });
  });
});

/** The reply as a client writes it when it dropped our Reply-To and the threading headers: to the From address. */
const withoutThreading = (raw: string) =>
  raw.replace(/^(?:In-Reply-To|References|Reply-To):.*\r?\n(?:[ \t].*\r?\n)*/gim, "");

describe.each(clients)(
  "a first %s reply without Reply-To, In-Reply-To or References",
  (_client, make, reply) => {
    it("is matched by its subject to the send to its sender, opens the send's thread, and the answer names it", async () => {
      const p = await makeProject(stack.db);
      const sent = await sendEmail(stack, p.liveKey, p);
      const raw = withoutThreading(
        make(
          {
            messageId: sent.messageId,
            subject: sent.subject,
            recipient: sent.recipient,
            sender: p.sender,
            to: p.sender,
          },
          reply,
        ),
      );
      expect(raw).not.toMatch(/^(In-Reply-To|References):/im);
      const r = await deliverRaw(stack, raw, [p.sender]);
      expect(r.status).toBe(200);
      const row = await inboundOf(stack, r.sesMessageId);
      expect(row).toMatchObject({
        matched_by: "subject",
        activity_id: sent.activityId,
        project_id: p.projectId,
        reply_text: reply,
      });
      expect(r.body).toEqual({
        success: true,
        messageId: r.sesMessageId,
        threadId: row.thread_id,
        projectId: p.projectId,
        status: "processed",
      });
      const thread = (
        await stack.db.pool.query("SELECT activity_id, message_count FROM inbound_threads WHERE id = $1", [
          row.thread_id,
        ])
      ).rows[0];
      expect(thread).toEqual({ activity_id: sent.activityId, message_count: 1 });
    });
  },
);

describe("the subject rule for a first reply keeps its safeguards", () => {
  const replyTo = (from: string, to: string, subject: string) =>
    `From: ${from}\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <${Math.random().toString(36).slice(2)}@example.org>\r\n\r\nThanks!\r\n`;

  it("compares the subject as sent: variables rendered for the recipient", async () => {
    const p = await makeProject(stack.db);
    const sent = await sendEmail(stack, p.liveKey, p, {
      subject: "Hello {{name}}, your code",
      data: { name: "Ada" },
    });
    const r = await deliverRaw(stack, replyTo(sent.recipient, p.sender, "RE: Hello Ada, your code"), [
      p.sender,
    ]);
    expect(await inboundOf(stack, r.sesMessageId)).toMatchObject({
      matched_by: "subject",
      activity_id: sent.activityId,
    });
  });

  it("the newest send with that subject wins", async () => {
    const p = await makeProject(stack.db);
    const to = `twice-${Date.now()}@example.org`;
    await sendEmail(stack, p.liveKey, p, { to, subject: "Your invoice" });
    const newer = await sendEmail(stack, p.liveKey, p, { to, subject: "Your invoice" });
    const r = await deliverRaw(stack, replyTo(to, p.sender, "Re: Your invoice"), [p.sender]);
    expect(await inboundOf(stack, r.sesMessageId)).toMatchObject({
      matched_by: "subject",
      activity_id: newer.activityId,
    });
  });

  it("matches nothing when sends of two projects share the subject", async () => {
    const a = await makeProject(stack.db);
    const b = await makeProject(stack.db);
    const to = `shared-${Date.now()}@example.org`;
    await sendEmail(stack, a.liveKey, a, { to, subject: "Welcome aboard" });
    await sendEmail(stack, b.liveKey, b, { to, subject: "Welcome aboard" });
    const r = await deliverRaw(stack, replyTo(to, a.sender, "Re: Welcome aboard"), [a.sender]);
    expect(r.body).toMatchObject({ projectId: null, threadId: null, status: "unmatched" });
    expect(await inboundOf(stack, r.sesMessageId)).toMatchObject({ matched_by: null, project_id: null });
  });

  it("matches nothing for a sender who was not a recipient of the send, or who fails DMARC", async () => {
    const p = await makeProject(stack.db);
    const sent = await sendEmail(stack, p.liveKey, p, { subject: "Your receipt" });
    const stranger = await deliverRaw(stack, replyTo("stranger@example.net", p.sender, "Re: Your receipt"), [
      p.sender,
    ]);
    expect(await inboundOf(stack, stranger.sesMessageId)).toMatchObject({
      matched_by: null,
      project_id: null,
    });
    const forged = await deliverRaw(
      stack,
      replyTo(sent.recipient, p.sender, "Re: Your receipt"),
      [p.sender],
      {
        dmarc: "FAIL",
      },
    );
    expect(await inboundOf(stack, forged.sesMessageId)).toMatchObject({ matched_by: null, project_id: null });
  });
});
