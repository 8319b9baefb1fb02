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
