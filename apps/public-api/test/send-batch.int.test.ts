// POST /v1/send-batch (spec 4.3). Real: PostgreSQL, RabbitMQ, Redis, s3rver. Provider sends of a full batch
// are checked end to end by the benchmark bench/send-batch and the stack test; here: what is accepted.
import request from "supertest";
import {
  bearer,
  count,
  makeProject,
  observeSendRequests,
  startHarness,
  startS3,
  suppress,
  testEnv,
  waitFor,
  type CommandObserver,
  type Harness,
  type TestProject,
} from "./helpers";

jest.setTimeout(60_000);
let h: Harness;
let s3: Awaited<ReturnType<typeof startS3>>;
let p: TestProject;
let observer: CommandObserver;

beforeAll(async () => {
  s3 = await startS3();
  h = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint }));
  observer = await observeSendRequests();
});
afterAll(async () => {
  await observer?.broker.close();
  await h?.close();
  await s3?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
});

const post = (body: unknown, key = p.liveKey, headers: Record<string, string> = {}) =>
  request(h.app)
    .post("/v1/send-batch")
    .set(bearer(key))
    .set(headers)
    .send(body as object);
const valid = (n = 3) => ({
  sender: p.sender,
  subject: "Hi {{name}}",
  html: "<p>Hi {{name}}</p>",
  recipients: Array.from({ length: n }, (_, i) => ({
    email: `user${i}@example.org`,
    data: { name: `U${i}` },
  })),
});

describe("POST /v1/send-batch errors (spec 4.3, word for word)", () => {
  it.each([
    [{ sender: undefined }, "sender is required"],
    // an address, as the single sends require: nothing else may reach the From header
    [{ sender: "bad" }, "sender is not a valid email address: bad"],
    [{ sender: "Demo <a@example.org>" }, "sender is not a valid email address: Demo <a@example.org>"],
    [
      { sender: "a@example.org\r\nBcc: v@example.org" },
      expect.stringMatching(/^sender is not a valid email/),
    ],
    [{ sender: "a b@example.org" }, "sender is not a valid email address: a b@example.org"],
    [{ sender: "x@y@example.org" }, "sender is not a valid email address: x@y@example.org"],
    [{ subject: undefined }, "subject or templateId is required"],
    [{ html: undefined }, "html or templateId is required"],
    [{ recipients: [] }, "recipients array is required and must not be empty"],
    [{ recipients: "nope" }, "recipients array is required and must not be empty"],
    [{ recipients: [{ email: "a@example.org" }, { data: {} }] }, "recipients[1].email is required"],
    // the single send endpoints' address rules: no lists, brackets, empty labels or trailing dots
    [{ recipients: [{ email: "a@example.org,x" }] }, "recipients[0].email is not a valid email address"],
    [{ recipients: [{ email: "a@b..com" }] }, "recipients[0].email is not a valid email address"],
    [{ recipients: [{ email: "a@example.org." }] }, "recipients[0].email is not a valid email address"],
    [
      { recipients: [{ email: "a@example.org", data: { k: "\ud800" } }] },
      "Request body must be valid Unicode: a \\uD800-\\uDFFF escape is not part of a pair",
    ],
    // the single send endpoints' caps and types (every header line within 998 characters)
    [{ subject: "S".repeat(999) }, "subject must be at most 998 characters"],
    [{ senderName: "N".repeat(201) }, "senderName must be at most 200 characters"],
    [{ subject: { a: 1 } }, "subject must be a string"],
    [{ html: ["<p>x</p>"] }, "html must be a string"],
    // a blank schedule is a bad value, not "now"
    [{ scheduled_at: " " }, "Invalid scheduled_at: empty value"],
  ])("400 %j", async (change, error) => {
    const res = await post({ ...valid(), ...change });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error });
  });

  it("400 Too many recipients: X. Maximum is 12,500 per batch.", async () => {
    const res = await post(valid(12_501));
    expect(res.body).toEqual({
      success: false,
      error: "Too many recipients: 12501. Maximum is 12,500 per batch.",
    });
  });

  it("401 without a key, 403 for an unverified sender, 404 for another project's template", async () => {
    expect((await request(h.app).post("/v1/send-batch").send(valid())).status).toBe(401);
    const unverified = await post({ ...valid(), sender: "nobody@unverified.example" });
    expect(unverified.status).toBe(403);
    expect(unverified.body.code).toBe("SENDER_NOT_VERIFIED");
    const other = await makeProject(h.deps);
    const t = await h.deps.db.pool.query(
      "INSERT INTO templates (id, project_id, internal_id, name, subject, html, updated_at) VALUES (gen_random_uuid(), $1, 1, 't', 's', 'h', now()) RETURNING id",
      [other.projectId],
    );
    const res = await post({
      sender: p.sender,
      templateId: t.rows[0].id,
      recipients: [{ email: "a@example.org" }],
    });
    expect(res.status).toBe(404);
  });
});

describe("POST /v1/send-batch", () => {
  it("accepts 12,500 recipients: 12,500 activities, 12,500 outbox activity ids, response in request order", async () => {
    const body = valid(12_500);
    const started = Date.now();
    const res = await post(body);
    const ms = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 12_500, queued: 12_500, scheduled: false, scheduled_for: null });
    const activities = res.body.activities as { email: string; activity_id: string }[];
    expect(activities.map((a) => a.email)).toEqual(body.recipients.map((r) => r.email));
    expect(
      await count(h.deps, "activities WHERE batch_id = $1 AND status = 'queued'", [res.body.batch_id]),
    ).toBe(12_500);
    // The relay publishes and deletes outbox rows at once (it runs in the harness), so the ids are checked
    // where they end up: the email.send-requested messages, at most 500 ids each.
    const envelopes = await waitFor(
      () => {
        const mine = observer.received.filter((e) => e.projectId === p.projectId);
        return mine.reduce((n, e) => n + e.payload.activityIds.length, 0) >= 12_500 && mine;
      },
      15_000,
      "the batch's email.send-requested messages",
    );
    expect(envelopes.every((e) => e.payload.activityIds.length <= 500)).toBe(true);
    const sent = envelopes.flatMap((e) => e.payload.activityIds);
    expect(sent).toHaveLength(12_500);
    expect(new Set(sent)).toEqual(new Set(activities.map((a) => a.activity_id)));
    expect(
      await count(h.deps, "project_usage WHERE project_id = $1 AND live_sent = 12500", [p.projectId]),
    ).toBe(1);
    expect(ms).toBeLessThan(30_000); // speed is measured by bench/send-batch, not here
  });

  it("keeps suppressed recipients in place with activity_id null and skipped, and does not count them", async () => {
    await suppress(h.deps, p.projectId, "user1@example.org", "bounce");
    const res = await post(valid(3), p.testKey);
    expect(res.body.queued).toBe(2);
    expect(res.body.activities[1]).toEqual({
      email: "user1@example.org",
      activity_id: null,
      skipped: true,
      suppression_reason: "bounce",
    });
    expect(await count(h.deps, "activities WHERE batch_id = $1 AND is_test", [res.body.batch_id])).toBe(2);
    expect(await count(h.deps, "project_usage WHERE project_id = $1", [p.projectId])).toBe(0); // test key: not counted
  });

  it("matches suppressions case-insensitively: one stored for Bob@x.org skips bob@X.org; the others keep their case", async () => {
    await suppress(h.deps, p.projectId, "Bob@x.org", "unsubscribed");
    const base = valid(1);
    const res = await post({
      ...base,
      recipients: [...base.recipients, { email: "bob@X.org" }, { email: "Bobby.Tables@X.org" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.queued).toBe(2);
    expect(res.body.activities.slice(1)).toEqual([
      { email: "bob@X.org", activity_id: null, skipped: true, suppression_reason: "unsubscribed" },
      { email: "Bobby.Tables@X.org", activity_id: expect.any(String) },
    ]);
    const stored = await h.deps.db.prisma.activity.findUniqueOrThrow({
      where: { id: res.body.activities[2].activity_id },
    });
    expect(stored.recipient).toBe("Bobby.Tables@X.org");
  });

  it("stores a scheduled batch for later: scheduled true, scheduled_for, activities waiting, nothing handed over", async () => {
    const res = await post({ ...valid(2), scheduled_at: "2099-01-02T03:04:05Z" });
    expect(res.body).toMatchObject({ scheduled: true, scheduled_for: "2099-01-02T03:04:05.000Z", queued: 2 });
    expect(
      await count(h.deps, "activities WHERE batch_id = $1 AND status = 'scheduled'", [res.body.batch_id]),
    ).toBe(2);
    expect(
      await count(
        h.deps,
        "scheduled_sends s JOIN activities a ON a.scheduled_send_id = s.id WHERE s.id = $1 AND s.batch_id = $2 AND s.status = 'scheduled' AND s.scheduled_for = '2099-01-02T03:04:05Z'",
        [res.body.scheduled_send_id, res.body.batch_id],
      ),
    ).toBe(2);
    expect(await count(h.deps, "outbox_messages WHERE payload->>'projectId' = $1", [p.projectId])).toBe(0);
    const past = await post({ ...valid(2), scheduled_at: "2001-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
  });

  it("replays an identical request with the same Idempotency-Key and sends nobody twice", async () => {
    const body = valid(5);
    const first = await post(body, p.liveKey, { "Idempotency-Key": "batch-1" });
    const again = await post(body, p.liveKey, { "Idempotency-Key": "batch-1" });
    expect(again.headers["idempotency-replayed"]).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await count(h.deps, "activities WHERE project_id = $1", [p.projectId])).toBe(5);
    const different = await post(valid(6), p.liveKey, { "Idempotency-Key": "batch-1" });
    expect(different.status).toBe(422);
  });
});

describe("POST /v1/send-batch stores", () => {
  it("each recipient's data, address as written (trimmed) and own reply token, in request order", async () => {
    const base = valid(3);
    const body = {
      ...base,
      recipients: [
        base.recipients[0],
        { email: "  Mixed.Case@Example.ORG ", data: { name: "Ann", tags: ["a", "b"] } },
        base.recipients[2],
      ],
    };
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body.activities.map((a: { email: string }) => a.email)).toEqual([
      "user0@example.org",
      "Mixed.Case@Example.ORG",
      "user2@example.org",
    ]);
    const { rows } = await h.deps.db.pool.query<{
      id: string;
      recipient: string;
      data: unknown;
      reply_token: string;
      token_activity: string | null;
    }>(
      `SELECT a.id, a.recipient, a.data, a.reply_token, t.activity_id AS token_activity
         FROM activities a LEFT JOIN reply_tokens t ON t.token = a.reply_token AND t.project_id = a.project_id
        WHERE a.batch_id = $1`,
      [res.body.batch_id],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const stored = res.body.activities.map((a: { activity_id: string }) => byId.get(a.activity_id));
    expect(stored.map((r: { recipient: string }) => r.recipient)).toEqual(
      res.body.activities.map((a: { email: string }) => a.email),
    );
    expect(stored.map((r: { data: unknown }) => r.data)).toEqual([
      { name: "U0" },
      { name: "Ann", tags: ["a", "b"] },
      { name: "U2" },
    ]);
    for (const r of stored) {
      expect(r.reply_token).toMatch(/^[a-z0-9]{8}$/);
      expect(r.token_activity).toBe(r.id);
    }
    expect(new Set(stored.map((r: { reply_token: string }) => r.reply_token)).size).toBe(3);
  });

  it("the batch but no activity, quota or outbox row when every recipient is suppressed", async () => {
    await suppress(h.deps, p.projectId, "user0@example.org", "complaint");
    await suppress(h.deps, p.projectId, "user1@example.org", "bounce");
    const res = await post(valid(2));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, queued: 0 });
    expect(res.body.activities.map((a: { activity_id: null }) => a.activity_id)).toEqual([null, null]);
    expect(
      await count(h.deps, "batches WHERE id = $1 AND total = 2 AND queued = 0", [res.body.batch_id]),
    ).toBe(1);
    expect(await count(h.deps, "email_messages WHERE batch_id = $1", [res.body.batch_id])).toBe(1);
    expect(await count(h.deps, "activities WHERE batch_id = $1", [res.body.batch_id])).toBe(0);
    expect(await count(h.deps, "project_usage WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "outbox_messages WHERE payload->>'projectId' = $1", [p.projectId])).toBe(0);

    // scheduled, it names no scheduled send: none was stored
    const later = await post({ ...valid(2), scheduled_at: "in 2 hours" });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ queued: 0, scheduled: true });
    expect(later.body.scheduled_send_id).toBeUndefined();
  });

  it("nothing at all when the batch would pass the monthly quota (429)", async () => {
    const period = new Date().toISOString().slice(0, 7);
    await h.deps.db.pool.query(
      "INSERT INTO project_usage (project_id, period, live_sent) VALUES ($1, $2, 499998)",
      [p.projectId, period],
    );
    const res = await post(valid(3));
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      success: false,
      error: "Monthly email quota exceeded (500,000 emails per month)",
    });
    expect(await count(h.deps, "batches WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "activities WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(await count(h.deps, "reply_tokens WHERE project_id = $1", [p.projectId])).toBe(0);
    expect(
      await count(h.deps, "project_usage WHERE project_id = $1 AND live_sent = 499998", [p.projectId]),
    ).toBe(1);
    expect((await post(valid(2))).status).toBe(200); // exactly up to the quota is fine
  });
});
