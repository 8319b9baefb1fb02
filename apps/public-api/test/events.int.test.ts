// Custom events, spec 4.7 (and 2, 5, 7, 8). Real: PostgreSQL (the preset's migrated DB), Redis, RabbitMQ.
import request from "supertest";
import { MSG_INVALID_KEY_PREFIX, MSG_INVALID_OR_MISSING_KEY } from "@emailsvc/http";
import { createApp } from "../src/app";
import { bearer, count, makeProject, startHarness, testEnv, type Harness, type TestProject } from "./helpers";

let h: Harness;
let p: TestProject;
let other: TestProject;
const run = Date.now().toString(36);
let n = 0;
const email = (tag = "e") => `${tag}-${run}-${++n}@example.org`;

beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
  other = await makeProject(h.deps);
});

const post = (body: unknown, key = p.liveKey) =>
  request(h.app)
    .post("/v1/events")
    .set(bearer(key))
    .send(body as object);
const bulk = (body: unknown, key = p.liveKey) =>
  request(h.app)
    .post("/v1/events/bulk")
    .set(bearer(key))
    .send(body as object);
const list = (query: Record<string, string | number>, key = p.liveKey) =>
  request(h.app).get("/v1/events").query(query).set(bearer(key));
const leadsOf = (projectId: string) => count(h.deps, "leads WHERE project_id = $1", [projectId]);
const eventsOf = (projectId: string) => count(h.deps, "lead_events WHERE project_id = $1", [projectId]);

describe("POST /v1/events", () => {
  it("answers 201 with event_id, recipient_id and created_lead; the lead is created once, not opted in", async () => {
    const to = email();
    const first = await post({ email: to, event: "signup", properties: { plan: "pro" } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      success: true,
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      recipient_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_lead: true,
    });
    const second = await post({ email: to.toUpperCase(), event: "login" });
    expect(second.status).toBe(201);
    expect(second.body.created_lead).toBe(false);
    expect(second.body.recipient_id).toBe(first.body.recipient_id);
    const lead = await h.deps.db.pool.query(
      "SELECT email, subscription, source, attributes FROM leads WHERE id = $1",
      [first.body.recipient_id],
    );
    expect(lead.rows[0]).toEqual({ email: to, subscription: "unknown", source: "event", attributes: {} });
    expect(await leadsOf(p.projectId)).toBe(1);
    expect(await eventsOf(p.projectId)).toBe(2);
  });

  it("the project setting auto_leads_subscribed makes auto-created leads subscribed (source event)", async () => {
    await h.deps.db.pool.query("UPDATE projects SET auto_leads_subscribed = true WHERE id = $1", [
      p.projectId,
    ]);
    const res = await post({ email: email(), event: "signup" });
    const lead = await h.deps.db.pool.query(
      "SELECT subscription, subscription_source FROM leads WHERE id = $1",
      [res.body.recipient_id],
    );
    expect(lead.rows[0]).toEqual({ subscription: "subscribed", subscription_source: "event" });
  });

  it("50 concurrent events for one new email: one lead, exactly one created_lead: true", async () => {
    const to = email("race");
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post({ email: i % 2 ? to : to.toUpperCase(), event: "hit" })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    expect(answers.filter((a) => a.body.created_lead === true)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.recipient_id)).size).toBe(1);
    expect(await leadsOf(p.projectId)).toBe(1);
    expect(await eventsOf(p.projectId)).toBe(50);
  });

  it("timestamp defaults to now; a given one is kept; unparseable or > 5 min ahead is a 400", async () => {
    const before = Date.now();
    const a = await post({ email: email(), event: "x" });
    const b = await post({ email: email(), event: "x", timestamp: "2024-02-29T10:00:00+02:00" });
    expect(b.status).toBe(201);
    const rows = await h.deps.db.pool.query<{ id: string; occurred_at: Date }>(
      "SELECT id, occurred_at FROM lead_events WHERE id = ANY($1::uuid[])",
      [[a.body.event_id, b.body.event_id]],
    );
    const at = new Map(rows.rows.map((r) => [r.id, r.occurred_at.getTime()]));
    expect(at.get(a.body.event_id)).toBeGreaterThanOrEqual(before - 5);
    expect(at.get(a.body.event_id)).toBeLessThanOrEqual(Date.now());
    expect(at.get(b.body.event_id)).toBe(Date.parse("2024-02-29T08:00:00Z"));

    for (const timestamp of ["yesterday", "2024-02-30T00:00:00Z", "", 1700000000, "2024-13-01"]) {
      const r = await post({ email: email(), event: "x", timestamp });
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.error).toMatch(/^timestamp: /);
    }
    const future = await post({
      email: email(),
      event: "x",
      timestamp: new Date(Date.now() + 6 * 60_000).toISOString(),
    });
    expect(future.status).toBe(400);
    expect(future.body.error).toBe("timestamp: timestamp is more than 5 minutes in the future");
    const nearFuture = await post({
      email: email(),
      event: "x",
      timestamp: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(nearFuture.status).toBe(201);
  });

  it("bad input is a 400 naming the field, never a 500", async () => {
    const cases: [unknown, RegExp][] = [
      [{ event: "x" }, /^email: is required$/],
      [{ email: email() }, /^event: is required$/],
      [{ email: "not-an-email", event: "x" }, /^email: is not a valid email address/],
      [{ email: "", event: "x" }, /^email: /],
      [{ email: email(), event: "" }, /^event: must not be empty$/],
      [{ email: email(), event: 42 }, /^event: must be a string$/],
      [{ email: email(), event: "x", properties: [1] }, /^properties: must be an object$/],
      [{ email: email(), event: "x", properties: "a" }, /^properties: /],
      [{ email: email(), event: "x", extra: 1 }, /extra/],
      [
        { email: email(), event: "x", properties: { big: "a".repeat(2 * 1024 * 1024) } },
        /^properties: is \d+ bytes/,
      ],
      [[{ email: email(), event: "x" }], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const r = await post(body);
      expect({ status: r.status, body: r.body }).toEqual({
        status: 400,
        body: { success: false, error: expect.stringMatching(message) },
      });
    }
    const deep = `{"email":"a@b.co","event":"x","properties":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`;
    const r = await request(h.app)
      .post("/v1/events")
      .set(bearer(p.liveKey))
      .set("content-type", "application/json")
      .send(deep);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(/nests deeper/) });
    const broken = await request(h.app)
      .post("/v1/events")
      .set(bearer(p.liveKey))
      .set("content-type", "application/json")
      .send("{");
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ success: false, error: "Invalid JSON body" });
    expect(await eventsOf(p.projectId)).toBe(0);
  });

  it("Idempotency-Key or event_id: a retried event counts once and answers with the first ids", async () => {
    const to = email();
    const a = await post({ email: to, event: "order" }).set("Idempotency-Key", `k-${run}`);
    const b = await post({ email: to, event: "order" }).set("Idempotency-Key", `k-${run}`);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.event_id).toBe(a.body.event_id);
    expect(b.body.duplicate).toBe(true);
    const c = await post({ email: to, event: "order", event_id: "ord-1" });
    const d = await post({ email: to, event: "order", event_id: "ord-1" });
    expect(d.body.event_id).toBe(c.body.event_id);
    expect(await eventsOf(p.projectId)).toBe(2);
    // the same key in another project is another event
    const e = await post({ email: to, event: "order", event_id: "ord-1" }, other.liveKey);
    expect(e.status).toBe(201);
    expect(e.body.event_id).not.toBe(c.body.event_id);
    const long = await post({ email: to, event: "order" }).set("Idempotency-Key", "k".repeat(129));
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/^Idempotency-Key: /);
  });

  it("401 bodies of spec 5, word for word", async () => {
    const none = await request(h.app).post("/v1/events").send({ email: email(), event: "x" });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ success: false, error: MSG_INVALID_OR_MISSING_KEY });
    const wrong = await post({ email: email(), event: "x" }, "sk_live_nope");
    expect(wrong.body).toEqual({ success: false, error: MSG_INVALID_OR_MISSING_KEY });
    const prefix = await post({ email: email(), event: "x" }, "pk_live_nope");
    expect(prefix.status).toBe(401);
    expect(prefix.body).toEqual({ success: false, error: MSG_INVALID_KEY_PREFIX });
    for (const path of ["/v1/events/bulk"]) {
      const r = await request(h.app).post(path).send({ events: [] });
      expect(r.body).toEqual({ success: false, error: MSG_INVALID_OR_MISSING_KEY });
    }
    const g = await request(h.app).get("/v1/events");
    expect(g.status).toBe(401);
  });
});

describe("POST /v1/events ahead of Express (events.fast-path.ts)", () => {
  // The same app without its fast path: Express's route. Both must answer every body alike.
  let expressOnly: ReturnType<typeof createApp>;
  beforeAll(() => {
    expressOnly = createApp(h.deps, undefined, { fastPaths: false });
  });
  const viaFast = (raw: string, key = p.liveKey) =>
    request(h.app).post("/v1/events").set(bearer(key)).set("content-type", "application/json").send(raw);
  const viaExpress = (raw: string, key = p.liveKey) =>
    request(expressOnly)
      .post("/v1/events")
      .set(bearer(key))
      .set("content-type", "application/json")
      .send(raw);
  const shape = (r: request.Response) => ({
    status: r.status,
    body: { ...r.body, ...(r.body.event_id ? { event_id: "id", recipient_id: "id" } : {}) },
    requestId: typeof r.headers["x-request-id"],
    limited: r.headers["ratelimit-limit"],
  });

  it("answers every body as the Express route does: the same status, body and headers", async () => {
    // each body is made twice, with a new email each time: both calls create their lead
    const bodies: ((to: string) => string)[] = [
      (to) => JSON.stringify({ email: to, event: "signup" }),
      () => JSON.stringify({ email: "nope", event: "x" }),
      (to) => JSON.stringify({ email: to }),
      (to) => JSON.stringify([{ email: to, event: "x" }]),
      () => JSON.stringify("a string"),
      () => "{",
      () => "",
      (to) => JSON.stringify({ email: to, event: "x", properties: { nul: "a\u0000b" } }),
    ];
    for (const [i, body] of bodies.entries()) {
      const fast = shape(await viaFast(body(email("same"))));
      const express = shape(await viaExpress(body(email("same"))));
      expect({ i, ...fast }).toEqual({ i, ...express });
    }
    for (const key of ["sk_live_nope", "pk_live_x"])
      expect(shape(await viaFast("{}", key))).toEqual(shape(await viaExpress("{}", key)));
  });

  it("a body over 10 MB is a 413 without reading it whole; a request id is kept or made", async () => {
    const big = await viaFast(
      JSON.stringify({ email: email(), event: "x", properties: { a: "b".repeat(11 * 1024 * 1024) } }),
    );
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ success: false, error: "Request body too large" });
    const mine = await viaFast(JSON.stringify({ email: email(), event: "x" })).set("X-Request-Id", "req-123");
    expect(mine.status).toBe(201);
    expect(mine.headers["x-request-id"]).toBe("req-123");
  });
});

describe("POST /v1/events/bulk", () => {
  it("1,000 events → 201 total 1000 and created_leads; 1,001 → 400 and nothing stored", async () => {
    const emails = Array.from({ length: 10 }, () => email("bulk"));
    const events = Array.from({ length: 1000 }, (_, i) => ({
      email: emails[i % 10],
      event: `e${i % 3}`,
      properties: { i },
    }));
    const res = await bulk({ events });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, total: 1000, created_leads: 10, duplicates: 0 });
    expect(res.body.results).toHaveLength(1000);
    expect(res.body.results[0]).toMatchObject({ index: 0, created_lead: true, duplicate: false });
    expect(res.body.results[10]).toMatchObject({
      index: 10,
      created_lead: false,
      recipient_id: res.body.results[0].recipient_id,
    });
    expect(await eventsOf(p.projectId)).toBe(1000);
    expect(await leadsOf(p.projectId)).toBe(10);

    const tooMany = await bulk({ events: [...events, events[0]] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({
      success: false,
      error: "events: Too many events: 1001. Maximum is 1000 per request.",
    });
    expect(await eventsOf(p.projectId)).toBe(1000);
  });

  it("an empty, missing or non-array events, or one bad item, is a 400 naming it; nothing is stored", async () => {
    for (const [body, msg] of [
      [{ events: [] }, "events: must not be empty"],
      [{}, /^events: /],
      [{ events: "x" }, /^events: /],
      [
        {
          events: [
            { email: email(), event: "ok" },
            { email: "bad", event: "x" },
          ],
        },
        /^events\[1\]\.email: is not a valid email address/,
      ],
      [{ events: [{ email: email(), event: "ok", timestamp: "soon" }] }, /^events\[0\]\.timestamp: /],
    ] as [unknown, string | RegExp][]) {
      const r = await bulk(body);
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
      if (typeof msg === "string") expect(r.body.error).toBe(msg);
      else expect(r.body.error).toMatch(msg);
    }
    expect(await eventsOf(p.projectId)).toBe(0);
  });

  it("Idempotency-Key on a bulk call: a retry stores nothing new", async () => {
    const events = [
      { email: email(), event: "a" },
      { email: email(), event: "b" },
    ];
    const a = await bulk({ events }).set("Idempotency-Key", `bk-${run}`);
    const b = await bulk({ events }).set("Idempotency-Key", `bk-${run}`);
    expect(a.body).toMatchObject({ total: 2, created_leads: 2, duplicates: 0 });
    expect(b.body).toMatchObject({ total: 2, created_leads: 0, duplicates: 2 });
    expect(b.body.results.map((x: { event_id: string }) => x.event_id)).toEqual(
      a.body.results.map((x: { event_id: string }) => x.event_id),
    );
    expect(await eventsOf(p.projectId)).toBe(2);
  });
});

describe("GET /v1/events", () => {
  const seed = async (k: number, to: string, name = "view", base = Date.parse("2026-01-01T00:00:00Z")) => {
    const events = Array.from({ length: k }, (_, i) => ({
      email: to,
      event: name,
      timestamp: new Date(base + i * 1000).toISOString(),
      properties: { i },
    }));
    for (let i = 0; i < events.length; i += 1000)
      expect((await bulk({ events: events.slice(i, i + 1000) })).status).toBe(201);
  };

  it("total_pages for 0, 1, 50 and 51 events", async () => {
    const to = email();
    const pages = async () => (await list({})).body.pagination;
    expect(await pages()).toEqual({ page: 1, per_page: 50, total: 0, total_pages: 0 });
    await seed(1, to);
    expect(await pages()).toEqual({ page: 1, per_page: 50, total: 1, total_pages: 1 });
    await seed(49, to, "view", Date.parse("2026-01-02T00:00:00Z"));
    expect(await pages()).toEqual({ page: 1, per_page: 50, total: 50, total_pages: 1 });
    await seed(1, to, "view", Date.parse("2026-01-03T00:00:00Z"));
    expect(await pages()).toEqual({ page: 1, per_page: 50, total: 51, total_pages: 2 });
    const second = await list({ page: 2 });
    expect(second.body.data).toHaveLength(1);
    // the oldest is last: newest first
    expect(second.body.data[0].timestamp).toBe("2026-01-01T00:00:00.000Z");
    expect(second.headers["x-total-count-exact"]).toBe("true");
  });

  it("pages past the count cap (10,000): the last one's total is exact, an earlier one's estimated, past the end counted", async () => {
    const to = email();
    // 10,150 events written set-based (the bulk route would take 11 calls): one lead, one second apart
    const lead = await post({ email: to, event: "first", timestamp: "2025-01-01T00:00:00Z" });
    await h.deps.db.pool.query(
      `INSERT INTO lead_events (id, project_id, lead_id, name, properties, occurred_at)
       SELECT gen_random_uuid(), $1, $2, 'deep', '{}'::jsonb, timestamptz '2026-02-01' + i * interval '1 second'
         FROM generate_series(1, 10149) i`,
      [p.projectId, lead.body.recipient_id],
    );
    await h.deps.db.pool.query("ANALYZE lead_events");
    // page 51 of 200: rows 10,001 to 10,150, the last page, short of a full one
    const last = await list({ per_page: 200, page: 51 });
    expect(last.status).toBe(200);
    expect(last.body.data).toHaveLength(150);
    expect(last.body.data.at(-1).event).toBe("first");
    expect(last.body.pagination).toEqual({ page: 51, per_page: 200, total: 10150, total_pages: 51 });
    expect(last.headers["x-total-count-exact"]).toBe("true");
    // page 50: full, with more after it: at least what was read, estimated
    const before = await list({ per_page: 200, page: 50 });
    expect(before.body.data).toHaveLength(200);
    // newest first across the two pages: page 50 ends just before page 51 starts
    expect(Date.parse(before.body.data.at(-1).timestamp) - Date.parse(last.body.data[0].timestamp)).toBe(
      1000,
    );
    expect(before.body.pagination.total).toBeGreaterThanOrEqual(10001);
    expect(before.headers["x-total-count-exact"]).toBe("false");
    // page 52: past the end, no rows, the exact total
    const past = await list({ per_page: 200, page: 52 });
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.total).toBe(10150);
    expect(past.headers["x-total-count-exact"]).toBe("true");
  });

  it("records are spec 2's event record, newest first; per_page defaults to 50 and is capped at 200", async () => {
    const to = email();
    await seed(250, to);
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(50);
    const lead = await h.deps.db.pool.query("SELECT id FROM leads WHERE project_id = $1", [p.projectId]);
    expect(res.body.data[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: to,
      event: "view",
      properties: { i: 249 },
      timestamp: new Date(Date.parse("2026-01-01T00:00:00Z") + 249_000).toISOString(),
      recipient_id: lead.rows[0].id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const capped = await list({ per_page: 1000 });
    expect(capped.body.data).toHaveLength(200);
    expect(capped.body.pagination).toEqual({ page: 1, per_page: 200, total: 250, total_pages: 2 });
    const last = await list({ per_page: 200, page: 2 });
    expect(last.body.data).toHaveLength(50);
    expect(last.body.data[49].properties).toEqual({ i: 0 });
    const beyond = await list({ page: 9 });
    expect(beyond.body.data).toEqual([]);
    for (const bad of [
      { page: 0 },
      { page: "x" },
      { per_page: 0 },
      { per_page: -1 },
      { since: "later" },
      { foo: 1 },
    ]) {
      const r = await list(bad as unknown as Record<string, string | number>);
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
    }
  });

  it("email, event, since and until filters; since and until are inclusive", async () => {
    const ann = email("ann");
    const bob = email("bob");
    const t0 = Date.parse("2026-03-01T00:00:00Z");
    await seed(3, ann, "buy", t0); // t0, t0+1s, t0+2s
    await seed(2, bob, "buy", t0);
    await seed(2, ann, "view", t0 + 10_000);
    const iso = (ms: number) => new Date(ms).toISOString();
    const total = async (q: Record<string, string>) => (await list(q)).body.pagination.total;
    expect(await total({ email: ann })).toBe(5);
    expect(await total({ email: ann.toUpperCase() })).toBe(5);
    expect(await total({ email: "nobody@example.org" })).toBe(0);
    expect(await total({ event: "buy" })).toBe(5);
    expect(await total({ event: "buy", email: bob })).toBe(2);
    expect(await total({ since: iso(t0 + 1000) })).toBe(2 + 1 + 2);
    expect(await total({ since: iso(t0 + 1001) })).toBe(1 + 2);
    expect(await total({ until: iso(t0 + 1000) })).toBe(2 + 2);
    expect(await total({ until: iso(t0 + 999) })).toBe(2);
    expect(await total({ since: iso(t0 + 1000), until: iso(t0 + 1000) })).toBe(2);
    expect(await total({ event: "buy", since: iso(t0 + 2000) })).toBe(1);
    const rows = (await list({ email: ann, event: "view" })).body.data;
    expect(rows.map((r: { timestamp: string }) => r.timestamp)).toEqual([iso(t0 + 11_000), iso(t0 + 10_000)]);
  });

  it("another project's events are never listed; its lead's email filters to nothing", async () => {
    const to = email();
    await post({ email: to, event: "secret" }, other.liveKey);
    const mine = await list({});
    expect(mine.body.data).toEqual([]);
    expect((await list({ email: to })).body.pagination.total).toBe(0);
    expect((await list({}, other.liveKey)).body.pagination.total).toBe(1);
  });
});
