// acceptSend on the real PostgreSQL: the rows one accepted send leaves (message, activities, reply tokens, the
// send request in the outbox), the lane's routing key, the quota charge and its refund, the in-statement gates
// and the idempotency backstop. Real: PostgreSQL. Faked: nothing (no relay runs, so outbox rows stay put).
import { AppError, ErrorCode, type ProjectId, RoutingKeys } from "@emailsvc/contracts";
import { MONTHLY_QUOTA, timeOrderedUuid } from "@emailsvc/db";
import { acceptSend, type AcceptResult, checkSenderAndFilter, refundQuota, usagePeriod } from "../src";
import { countOf, makeProject, openDb, outboxOf, rows, sendInput, suppress, usageOf } from "./fixtures";

const db = openDb();
afterAll(() => db.close());

function accepted(r: AcceptResult) {
  if (r.kind !== "accepted") throw new Error(`expected accepted, got ${r.kind}`);
  return r;
}

describe("acceptSend: one send, one statement", () => {
  it("writes the message, one queued activity per recipient with its reply token, and one send request", async () => {
    const p = await makeProject(db);
    const input = sendInput(p, {
      recipients: ["Ada@Example.com", "bob@example.com"],
      cc: ["cc@example.com"],
    });
    const r = accepted(await acceptSend(db, input));

    expect(r.emailMessageId).toBe(input.emailMessageId);
    expect(r.period).toBe(usagePeriod());
    expect(r.activities.map((a) => a.recipient)).toEqual(["Ada@Example.com", "bob@example.com"]);

    const [msg] = await rows<Record<string, unknown>>(
      db,
      "SELECT project_id, is_test, source, from_email, subject, cc FROM email_messages WHERE id = $1",
      [input.emailMessageId],
    );
    expect(msg).toEqual({
      project_id: p.projectId,
      is_test: false,
      source: "api",
      from_email: p.sender,
      subject: "Your order",
      cc: ["cc@example.com"],
    });

    const acts = await rows<{ id: string; recipient: string; status: string; reply_token: string }>(
      db,
      "SELECT id, recipient, status, reply_token FROM activities WHERE email_message_id = $1 ORDER BY id",
      [input.emailMessageId],
    );
    // The recipient as the client wrote it (RFC 5321: the local part's case is the receiver's to interpret).
    expect(acts.map(({ id, recipient, status }) => ({ id, recipient, status }))).toEqual(
      r.activities.map((a) => ({ ...a, status: "queued" })),
    );
    const tokens = await rows<{ token: string; activity_id: string }>(
      db,
      "SELECT token, activity_id FROM reply_tokens WHERE project_id = $1 ORDER BY activity_id",
      [p.projectId],
    );
    expect(tokens).toEqual(acts.map((a) => ({ token: a.reply_token, activity_id: a.id })));
    expect(tokens.every((t) => /^[a-z0-9]{8}$/i.test(t.token))).toBe(true);

    const outbox = await outboxOf(db, p.projectId);
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({
      exchange: "email.commands",
      routing_key: RoutingKeys.emailSendRequested,
      payload: {
        type: RoutingKeys.emailSendRequested,
        projectId: p.projectId,
        payload: { activityIds: r.activities.map((a) => a.id) },
      },
    });
  });

  it("the bulk lane's send request goes out as email.bulk-send-requested, carrying the correlation id", async () => {
    const p = await makeProject(db);
    const r = accepted(await acceptSend(db, sendInput(p, { lane: "bulk", correlationId: "req-bulk-1" })));
    const outbox = await outboxOf(db, p.projectId);
    expect(outbox.map((o) => [o.routing_key, o.payload.type, o.payload.correlationId])).toEqual([
      [RoutingKeys.emailBulkSendRequested, RoutingKeys.emailBulkSendRequested, "req-bulk-1"],
    ]);
    expect(outbox[0]!.payload.payload.activityIds).toEqual([r.activities[0]!.id]);
  });

  it("a synchronous send (enqueue: false) writes its rows but no send request; without replyTokens no tokens", async () => {
    const p = await makeProject(db);
    const r = accepted(await acceptSend(db, sendInput(p, { enqueue: false, replyTokens: false })));
    expect(await countOf(db, "activities", p.projectId)).toBe(1);
    expect(await outboxOf(db, p.projectId)).toEqual([]);
    expect(await countOf(db, "reply_tokens", p.projectId)).toBe(0);
    const [act] = await rows<{ reply_token: string | null }>(
      db,
      "SELECT reply_token FROM activities WHERE id = $1",
      [r.activities[0]!.id],
    );
    expect(act!.reply_token).toBeNull();
  });
});

describe("acceptSend: the quota", () => {
  it("a live send is charged per recipient to this month's quota and to total_sent; a test send is not", async () => {
    const p = await makeProject(db);
    const period = usagePeriod();
    await acceptSend(db, sendInput(p, { recipients: ["a@example.com", "b@example.com", "c@example.com"] }));
    expect(await usageOf(db, p.projectId, period)).toEqual({ liveSent: 3, totalSent: 3 });

    await acceptSend(db, sendInput(p, { isTest: true, counted: false, recipients: ["t@example.com"] }));
    expect(await usageOf(db, p.projectId, period)).toEqual({ liveSent: 3, totalSent: 3 });
    expect(await countOf(db, "activities", p.projectId)).toBe(4);
  });

  it("refundQuota gives the charge back to the month and to total_sent, never below zero", async () => {
    const p = await makeProject(db);
    const r = accepted(
      await acceptSend(db, sendInput(p, { recipients: ["a@example.com", "b@example.com"] })),
    );
    await refundQuota(db.pool, p.projectId, r.period, 1);
    expect(await usageOf(db, p.projectId, r.period)).toEqual({ liveSent: 1, totalSent: 1 });
    await refundQuota(db.pool, p.projectId, r.period, 5);
    expect(await usageOf(db, p.projectId, r.period)).toEqual({ liveSent: 0, totalSent: 0 });
  });

  it("a send past the month's quota is refused with QUOTA_EXCEEDED and writes nothing", async () => {
    const p = await makeProject(db);
    const period = usagePeriod();
    await db.pool.query("INSERT INTO project_usage (project_id, period, live_sent) VALUES ($1, $2, $3)", [
      p.projectId,
      period,
      MONTHLY_QUOTA - 1,
    ]);
    const err = await acceptSend(db, sendInput(p, { recipients: ["a@example.com", "b@example.com"] })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.QUOTA_EXCEEDED);
    expect(await usageOf(db, p.projectId, period)).toEqual({ liveSent: MONTHLY_QUOTA - 1, totalSent: 0 });
    expect(await countOf(db, "email_messages", p.projectId)).toBe(0);
    expect(await outboxOf(db, p.projectId)).toEqual([]);

    // The last email of the month still fits.
    accepted(await acceptSend(db, sendInput(p, { recipients: ["a@example.com"] })));
    expect(await usageOf(db, p.projectId, period)).toEqual({ liveSent: MONTHLY_QUOTA, totalSent: 1 });
  });
});

describe("acceptSend: the sender and suppression gates", () => {
  const gated = (p: { sender: string }, addresses: string[]) => ({ sender: p.sender, addresses });

  it("passes a verified sender with no suppressed address", async () => {
    const p = await makeProject(db);
    const r = await acceptSend(db, sendInput(p, { gates: gated(p, ["ada@example.com"]) }));
    expect(r.kind).toBe("accepted");
  });

  it("a suppressed address (any case, cc included) refuses the send and nothing is written or charged", async () => {
    const p = await makeProject(db);
    await suppress(db, p.projectId, "blocked@example.com", "bounce");
    const input = sendInput(p, {
      cc: ["Blocked@Example.com"],
      gates: gated(p, ["ada@example.com", "Blocked@Example.com"]),
    });
    expect(await acceptSend(db, input)).toEqual({ kind: "gates_refused" });
    await expectNothingWritten(p.projectId);
  });

  it("an unverified sender refuses the send; a verified domain identity lets it through", async () => {
    const p = await makeProject(db, { verifiedSender: false });
    const from = "news@shop-unverified.example";
    const input = sendInput(p, { fromEmail: from, gates: { sender: from, addresses: ["ada@example.com"] } });
    expect(await acceptSend(db, input)).toEqual({ kind: "gates_refused" });
    await expectNothingWritten(p.projectId);

    await db.prisma.domainIdentity.create({
      data: {
        projectId: p.projectId,
        domain: "shop-unverified.example",
        domainUnicode: "shop-unverified.example",
        activeDomain: "shop-unverified.example",
        status: "verified",
        domainVerified: true,
        verificationToken: "token",
        dkimTokens: [],
        mailFromDomain: "mail.shop-unverified.example",
      },
    });
    expect((await acceptSend(db, { ...input, emailMessageId: timeOrderedUuid() })).kind).toBe("accepted");
  });

  it("checkSenderAndFilter says why: 403 SENDER_NOT_VERIFIED, or the suppressed recipients with their reasons", async () => {
    const p = await makeProject(db);
    await expect(
      checkSenderAndFilter(db, p.projectId, "who@nowhere-verified.example", {
        to: ["a@example.com"],
        cc: [],
        bcc: [],
      }),
    ).rejects.toMatchObject({ code: ErrorCode.SENDER_NOT_VERIFIED });

    await suppress(db, p.projectId, "gone@example.com", "complaint");
    await suppress(db, p.projectId, "cc-gone@example.com", "unsubscribed");
    const out = await checkSenderAndFilter(db, p.projectId, p.sender, {
      to: ["ada@example.com", "GONE@example.com"],
      cc: ["cc-gone@example.com", "cc@example.com"],
      bcc: [],
    });
    expect(out).toEqual({
      to: ["ada@example.com"],
      cc: ["cc@example.com"],
      bcc: [],
      skipped: [{ recipient: "GONE@example.com", reason: "complaint" }],
    });
  });

  async function expectNothingWritten(projectId: ProjectId) {
    expect(await countOf(db, "email_messages", projectId)).toBe(0);
    expect(await countOf(db, "activities", projectId)).toBe(0);
    expect(await outboxOf(db, projectId)).toEqual([]);
    expect(await usageOf(db, projectId, usagePeriod())).toEqual({ liveSent: 0, totalSent: 0 });
  }
});

describe("acceptSend: the idempotency backstop", () => {
  const idem = (key: string, fingerprint: string, body: unknown) => ({
    key,
    fingerprint,
    response: { status: 200, body },
  });

  it("a second accept with the same key replays the stored response and sends nothing more", async () => {
    const p = await makeProject(db);
    const first = sendInput(p, { idempotency: idem("order-1", "fp-a", { success: true, id: "first" }) });
    accepted(await acceptSend(db, first));
    const again = sendInput(p, { idempotency: idem("order-1", "fp-a", { success: true, id: "second" }) });
    expect(await acceptSend(db, again)).toEqual({
      kind: "replay",
      response: { status: 200, body: { success: true, id: "first" } },
    });
    expect(await countOf(db, "email_messages", p.projectId)).toBe(1);
    expect(await outboxOf(db, p.projectId)).toHaveLength(1);
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 1, totalSent: 1 });
  });

  it("the same key with a different request is refused with 422 IDEMPOTENCY_KEY_REUSED", async () => {
    const p = await makeProject(db);
    await acceptSend(db, sendInput(p, { idempotency: idem("order-2", "fp-a", { ok: 1 }) }));
    await expect(
      acceptSend(db, sendInput(p, { idempotency: idem("order-2", "fp-b", { ok: 2 }) })),
    ).rejects.toMatchObject({ code: ErrorCode.IDEMPOTENCY_KEY_REUSED });
    expect(await countOf(db, "email_messages", p.projectId)).toBe(1);
  });

  it("a key whose request is still running (no stored response yet) is refused with 409 CONFLICT", async () => {
    const p = await makeProject(db);
    await db.pool.query(
      "INSERT INTO idempotency_keys (project_id, key, fingerprint) VALUES ($1, 'order-3', 'fp-a')",
      [p.projectId],
    );
    await expect(
      acceptSend(db, sendInput(p, { idempotency: idem("order-3", "fp-a", { ok: 1 }) })),
    ).rejects.toMatchObject({ code: ErrorCode.CONFLICT });
    expect(await countOf(db, "email_messages", p.projectId)).toBe(0);
  });

  it("keys are per project: another project's same key sends", async () => {
    const [p, q] = [await makeProject(db), await makeProject(db)];
    await acceptSend(db, sendInput(p, { idempotency: idem("shared", "fp", { n: 1 }) }));
    expect((await acceptSend(db, sendInput(q, { idempotency: idem("shared", "fp", { n: 2 }) }))).kind).toBe(
      "accepted",
    );
  });

  it("a key older than 24 hours is taken over by a new send", async () => {
    const p = await makeProject(db);
    await acceptSend(db, sendInput(p, { idempotency: idem("old", "fp-a", { n: 1 }) }));
    await db.pool.query(
      "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE project_id = $1",
      [p.projectId],
    );
    const r = await acceptSend(db, sendInput(p, { idempotency: idem("old", "fp-b", { n: 2 }) }));
    expect(r.kind).toBe("accepted");
    const [row] = await rows<{ fingerprint: string; response_body: unknown }>(
      db,
      "SELECT fingerprint, response_body FROM idempotency_keys WHERE project_id = $1 AND key = 'old'",
      [p.projectId],
    );
    expect(row).toEqual({ fingerprint: "fp-b", response_body: { n: 2 } });
  });
});
