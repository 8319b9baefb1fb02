// Group commit of the v1 accepts (acceptSendGroup / createAcceptBatcher): real PostgreSQL and RabbitMQ (the harness).
import request from "supertest";
import { AppError } from "@emailsvc/http";
import { type OutboxRecord, timeOrderedUuid } from "@emailsvc/db";
import { type AcceptSendInput, acceptSendGroup, createAcceptBatcher, MONTHLY_QUOTA } from "@emailsvc/sending";
import { waitFor } from "@emailsvc/testing";
import {
  bearer,
  count,
  makeProject,
  observeSendRequests,
  startHarness,
  suppress,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(() => h?.close());

const input = (p: TestProject, extra: Partial<AcceptSendInput> = {}): AcceptSendInput => {
  const recipients = extra.recipients ?? ["Ann@Example.org"];
  return {
    emailMessageId: timeOrderedUuid(),
    projectId: p.projectId,
    isTest: false,
    counted: true,
    source: "api",
    emailType: "transactional",
    fromEmail: p.sender,
    fromName: "Shop",
    subject: "Subject",
    html: "<p>x</p>",
    text: null,
    cc: [],
    bcc: [],
    headers: null,
    attachments: [],
    templateId: null,
    campaignId: null,
    automationRunId: null,
    recipients,
    replyTokens: true,
    enqueue: true,
    gates: { sender: extra.fromEmail ?? p.sender, addresses: [...recipients, ...(extra.cc ?? [])] },
    ...extra,
  };
};
const usage = async (projectId: string) =>
  (
    await h.deps.db.pool.query<{ live_sent: number; total_sent: number }>(
      `SELECT coalesce((SELECT live_sent FROM project_usage WHERE project_id = $1), 0) AS live_sent, total_sent::int AS total_sent
         FROM projects WHERE id = $1`,
      [projectId],
    )
  ).rows[0]!;
const written = (messageIds: string[]) =>
  count(h.deps, "email_messages WHERE id = ANY($1::uuid[])", [messageIds]);

describe("several v1 accepts in one statement", () => {
  it("writes every item and counts each project's live sends once for the sum of its items", async () => {
    const p = await makeProject(h.deps);
    const q = await makeProject(h.deps);
    const items = [
      input(p, { recipients: ["A@example.org", "b@example.org"], cc: ["c@example.org"] }),
      input(p, { headers: { "X-Tag": "t" } }),
      input(q, {
        isTest: true,
        counted: false,
        idempotency: { key: "k1", fingerprint: "f", response: { status: 200, body: { ok: 1 } } },
      }),
    ];
    const results = await acceptSendGroup(h.deps.db, items);
    expect(results.map((r) => r.kind)).toEqual(["accepted", "accepted", "accepted"]);
    expect(await written(items.map((i) => i.emailMessageId))).toBe(3);
    const acts = await h.deps.db.pool.query<{
      id: string;
      recipient: string;
      status: string;
      reply_token: string;
      email_message_id: string;
    }>(
      "SELECT id, recipient, status, reply_token, email_message_id FROM activities WHERE email_message_id = ANY($1::uuid[]) ORDER BY id",
      [items.map((i) => i.emailMessageId)],
    );
    // each message's recipients as written (RFC 5321 2.4), in its activities' id order (ids are ordered within one send)
    expect(
      items.map((i) =>
        acts.rows.filter((a) => a.email_message_id === i.emailMessageId).map((a) => a.recipient),
      ),
    ).toEqual([["A@example.org", "b@example.org"], ["Ann@Example.org"], ["Ann@Example.org"]]);
    expect(acts.rows.every((a) => a.status === "queued" && /^[a-z0-9]{8}$/.test(a.reply_token))).toBe(true);
    // what each item's result says is what was written
    expect(
      results.flatMap((r) => (r.kind === "accepted" ? r.activities.map((a) => a.id) : [])).sort(),
    ).toEqual(acts.rows.map((a) => a.id));
    expect(
      await count(h.deps, "reply_tokens WHERE activity_id = ANY($1::uuid[])", [acts.rows.map((a) => a.id)]),
    ).toBe(4);
    const msg = await h.deps.db.pool.query("SELECT cc, headers FROM email_messages WHERE id = $1", [
      items[0]!.emailMessageId,
    ]);
    expect(msg.rows[0]).toEqual({ cc: ["c@example.org"], headers: null });
    expect(await usage(p.projectId)).toEqual({ live_sent: 3, total_sent: 3 });
    expect(await usage(q.projectId)).toEqual({ live_sent: 0, total_sent: 0 });
    expect(await count(h.deps, "idempotency_keys WHERE project_id = $1 AND key = 'k1'", [q.projectId])).toBe(
      1,
    );
  });

  it("publishes one email.send-requested message per project for all of its sends", async () => {
    const observer = await observeSendRequests();
    try {
      const p = await makeProject(h.deps);
      const q = await makeProject(h.deps);
      const items = [
        input(p, { recipients: ["a@example.org", "b@example.org"], correlationId: "req-1" }),
        input(q, { correlationId: "req-2" }),
        input(p, { correlationId: "req-3" }),
      ];
      const results = await acceptSendGroup(h.deps.db, items);
      h.deps.outbox.kick();
      const idsOf = (n: number) => {
        const r = results[n]!;
        return r.kind === "accepted" ? r.activities.map((a) => a.id) : [];
      };
      const forP = await observer.waitFor((e) => e.projectId === p.projectId);
      const forQ = await observer.waitFor((e) => e.projectId === q.projectId);
      expect([...forP.payload.activityIds].sort()).toEqual([...idsOf(0), ...idsOf(2)].sort());
      expect(forQ.payload.activityIds).toEqual(idsOf(1));
      // a message of several requests carries none of their ids; one request's message keeps its own
      expect(forP.correlationId).not.toMatch(/^req-/);
      expect(forQ.correlationId).toBe("req-2");
      await new Promise((r) => setTimeout(r, 200));
      expect(observer.received.filter((e) => e.projectId === p.projectId)).toHaveLength(1);
    } finally {
      await observer.broker.close();
    }
  });

  it.each([
    ["an unverified sender", (p: TestProject) => input(p, { fromEmail: "nobody@unverified.example.com" })],
    ["a suppressed recipient", (p: TestProject) => input(p, { recipients: ["gone@example.org"] })],
  ])("writes nothing at all when one item has %s", async (_what, bad) => {
    const p = await makeProject(h.deps);
    await suppress(h.deps, p.projectId, "gone@example.org", "bounce");
    const items = [input(p), bad(p), input(p)];
    await expect(acceptSendGroup(h.deps.db, items)).rejects.toThrow("send_gates_refused");
    expect(await written(items.map((i) => i.emailMessageId))).toBe(0);
    expect(await usage(p.projectId)).toEqual({ live_sent: 0, total_sent: 0 });
  });
});

describe("the accept batcher", () => {
  it("answers each item of a refused batch as it would alone: accepted, refused, replayed, over quota", async () => {
    const p = await makeProject(h.deps);
    const batcher = createAcceptBatcher(h.deps.db);
    const stored = { status: 200, body: { message: "first" } };
    await batcher.submit(input(p, { idempotency: { key: "dup", fingerprint: "f", response: stored } }));
    // three sends left in the month (the one above counted)
    await h.deps.db.pool.query("UPDATE project_usage SET live_sent = $2 WHERE project_id = $1", [
      p.projectId,
      MONTHLY_QUOTA - 3,
    ]);
    // Submitted in one turn, the six go as one statement, which the unverified sender (and the replayed key)
    // refuse; each then runs alone, all at the same time.
    const items = [
      input(p),
      input(p),
      input(p, { fromEmail: "nobody@unverified.example.com" }),
      input(p, { idempotency: { key: "dup", fingerprint: "f", response: { status: 200, body: {} } } }),
      input(p),
      input(p),
    ];
    const outcomes = await Promise.all(
      items.map((i) =>
        batcher.submit(i).then(
          (r) => r.kind,
          (err: unknown) => (err instanceof AppError ? err.code : String(err)),
        ),
      ),
    );
    expect(outcomes.slice(2, 4)).toEqual(["gates_refused", "replay"]);
    // three sends left for the four others, which ran at the same time: any one of them is the one too many
    expect([0, 1, 4, 5].map((i) => outcomes[i]).sort()).toEqual([
      "QUOTA_EXCEEDED",
      "accepted",
      "accepted",
      "accepted",
    ]);
    expect((await usage(p.projectId)).live_sent).toBe(MONTHLY_QUOTA);
    expect(await written(items.map((i) => i.emailMessageId))).toBe(3);
  });

  it("with a running relay, each statement's send requests go to it, held from the poll, and are published and removed", async () => {
    const observer = await observeSendRequests();
    try {
      const p = await makeProject(h.deps);
      const handed: OutboxRecord[] = [];
      let relayRuns = true;
      const batcher = createAcceptBatcher(h.deps.db, {
        handoff: () => {
          const take = relayRuns ? h.deps.outbox.handoff() : null;
          return take
            ? (rows) => {
                handed.push(...rows);
                take(rows);
              }
            : null;
        },
      });
      // three in one turn (one statement, one message for the project), then one alone
      const group = await Promise.all([input(p), input(p), input(p)].map((i) => batcher.submit(i)));
      const alone = await batcher.submit(input(p));
      const results = [...group, alone];
      expect(results.map((r) => r.kind === "accepted" && r.outboxHanded)).toEqual([true, true, true, true]);
      const activityIds = results.flatMap((r) =>
        r.kind === "accepted" ? r.activities.map((a) => a.id) : [],
      );
      // written held: the poll cannot have published them, so the relay published what it was handed
      expect(handed.map((r) => r.routingKey)).toEqual(["email.send-requested", "email.send-requested"]);
      for (const id of activityIds) await observer.waitFor((e) => e.payload.activityIds.includes(id));
      await waitFor(
        async () =>
          (await count(h.deps, "outbox_messages WHERE id = ANY($1::uuid[])", [handed.map((r) => r.id)])) ===
          0,
        5000,
        "the handed rows removed",
      );

      // no relay running (a test, a stopping service): written due at once, for the caller to kick
      relayRuns = false;
      const due = await batcher.submit(input(p));
      expect(due.kind === "accepted" && due.outboxHanded).toBeFalsy();
      expect(handed).toHaveLength(2);
      h.deps.outbox.kick();
      const id = due.kind === "accepted" ? due.activities[0]!.id : "";
      await observer.waitFor((e) => e.payload.activityIds.includes(id));
    } finally {
      await observer.broker.close();
    }
  });

  it("concurrent /v1/send-email requests are each accepted once", async () => {
    const p = await makeProject(h.deps);
    const res = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(h.app)
          .post("/v1/send-email")
          .set(bearer(p.liveKey))
          .send({
            recipient_email: `r${i}@example.org`,
            sender_email: p.sender,
            subject: "S",
            html_body: "<p>x</p>",
          }),
      ),
    );
    expect(res.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(new Set(res.map((r) => r.body.email_id)).size).toBe(30);
    expect(await written(res.map((r) => r.body.email_id))).toBe(30);
    expect(await usage(p.projectId)).toEqual({ live_sent: 30, total_sent: 30 });
  });
});
