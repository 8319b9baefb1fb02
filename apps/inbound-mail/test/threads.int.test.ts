// Real: PostgreSQL, RabbitMQ, Redis, s3rver, the provider simulator, public-api, send-worker, webhook-dispatcher
// and inbound-mail. Each thread rule of spec 4.9, and its priority over the next.
import { randomUUID } from "node:crypto";
import { inboundOf, inject, makeProject, sendEmail, type Stack, startStack } from "./harness";

jest.setTimeout(240_000);
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const token = (t: string) => `r-${t}@inbound.test`;

describe("thread resolution (spec 4.9 step 3)", () => {
  it("1. the reply token wins over In-Reply-To naming another send", async () => {
    const p = await makeProject(stack.db);
    const a = await sendEmail(stack, p.liveKey, p);
    const b = await sendEmail(stack, p.liveKey, p);
    const r = await inject(stack, {
      from: a.recipient,
      to: token(a.replyToken),
      subject: `Re: ${b.subject}`,
      text: "token first",
      inReplyTo: b.messageId,
      references: [b.messageId],
    });
    const row = await inboundOf(stack, r.messageId);
    expect(row).toMatchObject({ matched_by: "token", activity_id: a.activityId, project_id: p.projectId });
  });

  it("1. finds the token in Cc, whatever its case, when the envelope names another address", async () => {
    const p = await makeProject(stack.db);
    const a = await sendEmail(stack, p.liveKey, p);
    const r = await inject(stack, {
      from: a.recipient,
      to: ["team@example.org", `R-${a.replyToken.toUpperCase()}@Inbound.Test`],
      subject: "no re prefix",
      text: "cc'd",
    });
    expect(await inboundOf(stack, r.messageId)).toMatchObject({
      matched_by: "token",
      activity_id: a.activityId,
    });
  });

  it("a token never resolves across projects: project B's In-Reply-To does not pull a reply out of project A", async () => {
    const pa = await makeProject(stack.db);
    const pb = await makeProject(stack.db);
    const a = await sendEmail(stack, pa.liveKey, pa);
    const b = await sendEmail(stack, pb.liveKey, pb);
    const r = await inject(stack, {
      from: a.recipient,
      to: token(a.replyToken),
      subject: "Re: cross",
      text: "x",
      inReplyTo: b.messageId,
    });
    const row = await inboundOf(stack, r.messageId);
    expect(row).toMatchObject({ project_id: pa.projectId, activity_id: a.activityId, matched_by: "token" });
    const inB = await stack.db.pool.query("SELECT 1 FROM inbound_messages WHERE project_id = $1", [
      pb.projectId,
    ]);
    expect(inB.rowCount).toBe(0);
    // and a token row pointing at another project's activity resolves to nothing
    await stack.db.pool.query(
      "INSERT INTO reply_tokens (token, project_id, activity_id) VALUES ($1, $2, $3)",
      ["zzzz0000", pa.projectId, b.activityId],
    );
    const forged = await inject(stack, {
      from: b.recipient,
      to: token("zzzz0000"),
      subject: "forged",
      text: "x",
    });
    expect(await inboundOf(stack, forged.messageId)).toMatchObject({ project_id: null, matched_by: null });
  });

  it("2. the legacy reply+<project>-<activity> form, only when the activity is that project's", async () => {
    const pa = await makeProject(stack.db);
    const pb = await makeProject(stack.db);
    const a = await sendEmail(stack, pa.liveKey, pa);
    const ok = await inject(stack, {
      from: a.recipient,
      to: `reply+${pa.projectId}-${a.activityId}@inbound.test`,
      subject: "legacy",
      text: "legacy form",
    });
    const row = await inboundOf(stack, ok.messageId);
    expect(row).toMatchObject({ matched_by: "legacy", activity_id: a.activityId, project_id: pa.projectId });
    const body = (
      await stack.db.pool.query(
        "SELECT webhook_body, return_path_parsed FROM inbound_messages WHERE id = $1",
        [row.id],
      )
    ).rows[0];
    expect(body.return_path_parsed).toEqual({ project_id: pa.projectId, activity_id: a.activityId });
    expect(JSON.parse(body.webhook_body).data.return_path_parsed).toEqual({
      project_id: pa.projectId,
      activity_id: a.activityId,
    });

    // the activity of project A under project B's id: not accepted; the next rule (In-Reply-To) decides
    const wrong = await inject(stack, {
      from: a.recipient,
      to: `reply+${pb.projectId}-${a.activityId}@inbound.test`,
      subject: "legacy wrong project",
      text: "x",
    });
    expect(await inboundOf(stack, wrong.messageId)).toMatchObject({ matched_by: null, project_id: null });
  });

  it("2 before 3: the legacy form wins over In-Reply-To", async () => {
    const p = await makeProject(stack.db);
    const a = await sendEmail(stack, p.liveKey, p);
    const b = await sendEmail(stack, p.liveKey, p);
    const r = await inject(stack, {
      from: a.recipient,
      to: `reply+${p.projectId}-${a.activityId}@inbound.test`,
      subject: "x",
      text: "x",
      inReplyTo: b.messageId,
    });
    expect(await inboundOf(stack, r.messageId)).toMatchObject({
      matched_by: "legacy",
      activity_id: a.activityId,
    });
  });

  it("3. In-Reply-To matched to the Message-ID of a send (any case), and it wins over References", async () => {
    const p = await makeProject(stack.db);
    const a = await sendEmail(stack, p.liveKey, p);
    const b = await sendEmail(stack, p.liveKey, p);
    const r = await inject(stack, {
      from: a.recipient,
      to: "support@inbound.test",
      subject: "Re: something else",
      text: "x",
      inReplyTo: a.messageId.toUpperCase(),
      references: [b.messageId],
    });
    expect(await inboundOf(stack, r.messageId)).toMatchObject({
      matched_by: "in_reply_to",
      activity_id: a.activityId,
    });
  });

  it("4. the References chain: the latest of our sends in it", async () => {
    const p = await makeProject(stack.db);
    const a = await sendEmail(stack, p.liveKey, p);
    const b = await sendEmail(stack, p.liveKey, p);
    const r = await inject(stack, {
      from: b.recipient,
      to: "support@inbound.test",
      subject: "Re: chain",
      text: "x",
      inReplyTo: "<someone-elses@mail.example.org>",
      references: [a.messageId, "<x@elsewhere.example>", b.messageId, "<someone-elses@mail.example.org>"],
    });
    expect(await inboundOf(stack, r.messageId)).toMatchObject({
      matched_by: "references",
      activity_id: b.activityId,
    });
  });

  it("4 before 5: References wins over a subject that matches another thread", async () => {
    const p = await makeProject(stack.db);
    const a = await sendEmail(stack, p.liveKey, p, { subject: "Invoice 4711" });
    const b = await sendEmail(stack, p.liveKey, p, { to: a.recipient, subject: "Invoice 4712" });
    // a thread for a (by token), then a reply naming b in References with a's subject
    const first = await inject(stack, {
      from: a.recipient,
      to: token(a.replyToken),
      subject: "Re: Invoice 4711",
      text: "x",
    });
    await inboundOf(stack, first.messageId);
    const r = await inject(stack, {
      from: a.recipient,
      to: "support@inbound.test",
      subject: "Re: Invoice 4711",
      text: "y",
      references: [b.messageId],
    });
    expect(await inboundOf(stack, r.messageId)).toMatchObject({
      matched_by: "references",
      activity_id: b.activityId,
    });
  });

  it("5. the normalised subject: Re:/AW:/SV:/RE[2]: stripped, participants overlapping, one project", async () => {
    const p = await makeProject(stack.db);
    const subject = `Quote ${randomUUID().slice(0, 8)}`;
    const a = await sendEmail(stack, p.liveKey, p, { subject });
    const first = await inject(stack, {
      from: a.recipient,
      to: token(a.replyToken),
      subject: `Re: ${subject}`,
      text: "1",
    });
    const thread = (await inboundOf(stack, first.messageId)).thread_id;
    for (const prefix of ["AW: ", "SV: Re: ", "RE[2]: ", "Fwd: Re: "]) {
      const r = await inject(stack, {
        from: a.recipient,
        to: "support@inbound.test",
        subject: `${prefix}${subject.toUpperCase()}`,
        text: "again",
      });
      expect(await inboundOf(stack, r.messageId)).toMatchObject({
        matched_by: "subject",
        thread_id: thread,
        project_id: p.projectId,
      });
    }
    // a stranger (not a participant, and no participant in To/Cc) is not threaded by subject
    const stranger = await inject(stack, {
      from: "stranger@example.net",
      to: "support@inbound.test",
      subject: `Re: ${subject}`,
      text: "?",
    });
    expect(await inboundOf(stack, stranger.messageId)).toMatchObject({ matched_by: null, project_id: null });
  });

  it("5. a subject shared by threads of two projects matches neither; a thread older than 30 days is not matched", async () => {
    const subject = `Shared ${randomUUID().slice(0, 8)}`;
    const customer = `both-${randomUUID().slice(0, 8)}@example.org`;
    for (const key of ["a", "b"]) {
      void key;
      const p = await makeProject(stack.db);
      const s = await sendEmail(stack, p.liveKey, p, { to: customer, subject });
      const r = await inject(stack, {
        from: customer,
        to: token(s.replyToken),
        subject: `Re: ${subject}`,
        text: "1",
      });
      await inboundOf(stack, r.messageId);
    }
    const r = await inject(stack, {
      from: customer,
      to: "support@inbound.test",
      subject: `Re: ${subject}`,
      text: "which?",
    });
    expect(await inboundOf(stack, r.messageId)).toMatchObject({ matched_by: null, project_id: null });

    const p = await makeProject(stack.db);
    const old = `Old ${randomUUID().slice(0, 8)}`;
    const s = await sendEmail(stack, p.liveKey, p, { subject: old });
    const first = await inject(stack, {
      from: s.recipient,
      to: token(s.replyToken),
      subject: `Re: ${old}`,
      text: "1",
    });
    const t = (await inboundOf(stack, first.messageId)).thread_id;
    await stack.db.pool.query(
      "UPDATE inbound_threads SET last_message_at = now() - interval '31 days' WHERE id = $1",
      [t],
    );
    // and the send too: the subject rule also matches a send within the window (a first reply)
    await stack.db.pool.query("UPDATE activities SET created_at = now() - interval '31 days' WHERE id = $1", [
      s.activityId,
    ]);
    const late = await inject(stack, {
      from: s.recipient,
      to: "support@inbound.test",
      subject: `Re: ${old}`,
      text: "late",
    });
    expect(await inboundOf(stack, late.messageId)).toMatchObject({ matched_by: null });
  });

  it("flags a non-participant failing DMARC as suspicious and never threads it by subject", async () => {
    const p = await makeProject(stack.db);
    const subject = `Payment ${randomUUID().slice(0, 8)}`;
    const a = await sendEmail(stack, p.liveKey, p, { subject });
    const first = await inject(stack, {
      from: a.recipient,
      to: token(a.replyToken),
      subject: `Re: ${subject}`,
      text: "1",
    });
    await inboundOf(stack, first.messageId);
    // Cc's a participant, so the subject rule would take it, but the sender fails DMARC and is no participant
    const spoof = await inject(stack, {
      from: "ceo@lookalike.example",
      to: "support@inbound.test",
      cc: a.recipient,
      subject: `Re: ${subject}`,
      text: "please wire the money",
      verdicts: { dmarc: "FAIL" },
    });
    expect(await inboundOf(stack, spoof.messageId)).toMatchObject({ matched_by: null, suspicious: true });
    // the same with DMARC passing is threaded by subject (participants overlap through Cc)
    const colleague = await inject(stack, {
      from: "colleague@example.org",
      to: "support@inbound.test",
      cc: a.recipient,
      subject: `Re: ${subject}`,
      text: "adding my colleague",
    });
    expect(await inboundOf(stack, colleague.messageId)).toMatchObject({
      matched_by: "subject",
      suspicious: false,
    });
    // by token, a non-participant failing DMARC is threaded but flagged
    const viaToken = await inject(stack, {
      from: "ceo@lookalike.example",
      to: token(a.replyToken),
      subject: `Re: ${subject}`,
      text: "x",
      verdicts: { dmarc: "FAIL" },
    });
    expect(await inboundOf(stack, viaToken.messageId)).toMatchObject({
      matched_by: "token",
      suspicious: true,
    });
  });

  it("keeps thread rows with the original send: activity, message, Message-ID, participants", async () => {
    const p = await makeProject(stack.db);
    const a = await sendEmail(stack, p.liveKey, p);
    const r = await inject(stack, {
      from: a.recipient,
      to: token(a.replyToken),
      subject: `Re: ${a.subject}`,
      text: "x",
    });
    const row = await inboundOf(stack, r.messageId);
    const t = (await stack.db.pool.query("SELECT * FROM inbound_threads WHERE id = $1", [row.thread_id]))
      .rows[0];
    expect(t).toMatchObject({
      project_id: p.projectId,
      activity_id: a.activityId,
      outbound_message_id: a.messageId,
      campaign_id: null,
      email_type: "transactional",
      message_count: 1,
      subject: a.subject,
    });
    expect(t.participants).toEqual(expect.arrayContaining([a.recipient, p.sender]));
  });
});
