// The group commit of v1 accepts on the real PostgreSQL: sends submitted together share one statement and one
// send request per project and lane; when one of them is refused, nothing of the group is written and each runs
// again alone, getting its own answer. Real: PostgreSQL. Faked: nothing (no relay runs).
import { ErrorCode, RoutingKeys } from "@emailsvc/contracts";
import { acceptSendGroup, type AcceptResult, createAcceptBatcher, usagePeriod } from "../src";
import { countOf, makeProject, openDb, outboxOf, sendInput, suppress, usageOf } from "./fixtures";

const db = openDb();
afterAll(() => db.close());

const idsOf = (r: AcceptResult) => (r.kind === "accepted" ? r.activities.map((a) => a.id) : []);

describe("createAcceptBatcher: sends submitted in one turn", () => {
  it("share one statement: one send request per project and lane, carrying every send's activities", async () => {
    const [p, q] = [await makeProject(db), await makeProject(db)];
    const batcher = createAcceptBatcher(db);
    const [a, b, c, d] = await Promise.all([
      batcher.submit(sendInput(p, { recipients: ["a1@example.com", "a2@example.com"] })),
      batcher.submit(sendInput(p, { recipients: ["b@example.com"], lane: "bulk" })),
      batcher.submit(sendInput(q, { recipients: ["c@example.com"] })),
      batcher.submit(sendInput(p, { recipients: ["d@example.com"] })),
    ]);
    expect([a, b, c, d].map((r) => r.kind)).toEqual(["accepted", "accepted", "accepted", "accepted"]);

    const pOutbox = await outboxOf(db, p.projectId);
    expect(pOutbox.map((o) => [o.routing_key, o.payload.payload.activityIds])).toEqual(
      expect.arrayContaining([
        [RoutingKeys.emailSendRequested, [...idsOf(a!), ...idsOf(d!)]],
        [RoutingKeys.emailBulkSendRequested, idsOf(b!)],
      ]),
    );
    expect(pOutbox).toHaveLength(2);
    expect((await outboxOf(db, q.projectId)).map((o) => o.payload.payload.activityIds)).toEqual([idsOf(c!)]);

    // Each project is charged for its own sends only.
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 4, totalSent: 4 });
    expect(await usageOf(db, q.projectId, usagePeriod())).toEqual({ liveSent: 1, totalSent: 1 });
    expect(await countOf(db, "activities", p.projectId)).toBe(4);
    expect(await countOf(db, "reply_tokens", p.projectId)).toBe(4);
  });

  it("when one send's gate refuses, the others are still accepted, each alone with its own send request", async () => {
    const p = await makeProject(db);
    await suppress(db, p.projectId, "blocked@example.com", "bounce");
    const gates = (to: string) => ({ sender: p.sender, addresses: [to] });
    const batcher = createAcceptBatcher(db);
    const [ok1, refused, ok2] = await Promise.all(
      ["one@example.com", "blocked@example.com", "two@example.com"].map((to) =>
        batcher.submit(sendInput(p, { recipients: [to], gates: gates(to) })),
      ),
    );
    expect(refused).toEqual({ kind: "gates_refused" });
    expect([ok1!.kind, ok2!.kind]).toEqual(["accepted", "accepted"]);
    const outbox = await outboxOf(db, p.projectId);
    expect(outbox.map((o) => o.payload.payload.activityIds).sort()).toEqual(
      [idsOf(ok1!), idsOf(ok2!)].sort(),
    );
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 2, totalSent: 2 });
  });

  it("a replayed key and a fresh send in one turn: the replay answers with its stored response", async () => {
    const p = await makeProject(db);
    const idem = { key: "k-1", fingerprint: "fp", response: { status: 200, body: { id: "stored" } } };
    const batcher = createAcceptBatcher(db);
    await batcher.submit(sendInput(p, { idempotency: idem }));
    const [replay, fresh, reused] = await Promise.all([
      batcher.submit(
        sendInput(p, { idempotency: { ...idem, response: { status: 200, body: { id: "new" } } } }),
      ),
      batcher.submit(sendInput(p, { recipients: ["fresh@example.com"] })),
      batcher
        .submit(sendInput(p, { idempotency: { ...idem, fingerprint: "other" } }))
        .catch((e: unknown) => e),
    ]);
    expect(replay).toEqual({ kind: "replay", response: { status: 200, body: { id: "stored" } } });
    expect(fresh!.kind).toBe("accepted");
    expect(reused).toMatchObject({ code: ErrorCode.IDEMPOTENCY_KEY_REUSED });
    expect(await countOf(db, "email_messages", p.projectId)).toBe(2);
  });
});

describe("acceptSendGroup", () => {
  it("writes nothing at all when one item's gate refuses (the batcher then runs each alone)", async () => {
    const p = await makeProject(db);
    await suppress(db, p.projectId, "blocked@example.com", "complaint");
    const inputs = ["one@example.com", "blocked@example.com"].map((to) =>
      sendInput(p, { recipients: [to], gates: { sender: p.sender, addresses: [to] } }),
    );
    await expect(acceptSendGroup(db, inputs)).rejects.toMatchObject({ code: "P0001" });
    expect(await countOf(db, "email_messages", p.projectId)).toBe(0);
    expect(await outboxOf(db, p.projectId)).toEqual([]);
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 0, totalSent: 0 });
  });

  it("counts only live items, and keeps a correlation id only when the whole message shares it", async () => {
    const p = await makeProject(db);
    const results = await acceptSendGroup(db, [
      sendInput(p, { correlationId: "req-1" }),
      sendInput(p, { correlationId: "req-1", isTest: true, counted: false }),
      sendInput(p, { lane: "bulk", correlationId: "req-2" }),
      sendInput(p, { lane: "bulk", correlationId: "req-3" }),
    ]);
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 3, totalSent: 3 });
    const outbox = await outboxOf(db, p.projectId);
    const transactional = outbox.find((o) => o.routing_key === RoutingKeys.emailSendRequested)!;
    const bulk = outbox.find((o) => o.routing_key === RoutingKeys.emailBulkSendRequested)!;
    expect(transactional.payload.correlationId).toBe("req-1");
    expect(transactional.payload.payload.activityIds).toEqual([...idsOf(results[0]!), ...idsOf(results[1]!)]);
    expect(["req-2", "req-3"]).not.toContain(bulk.payload.correlationId);
    expect(bulk.payload.payload.activityIds).toEqual([...idsOf(results[2]!), ...idsOf(results[3]!)]);
  });
});
