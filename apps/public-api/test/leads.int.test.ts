// Leads, tags, attributes and segment membership (spec 4.6, 8). Real: PostgreSQL, Redis, RabbitMQ.
import request from "supertest";
import { MSG_INVALID_OR_MISSING_KEY } from "@emailsvc/http";
import { bearer, count, makeProject, startHarness, testEnv, type Harness, type TestProject } from "./helpers";

let h: Harness;
let p: TestProject;
let other: TestProject;
const run = Date.now().toString(36);
let n = 0;
const email = (tag = "l") => `${tag}-${run}-${++n}@example.org`;
const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };

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

const api = (key = p.liveKey) => ({
  get: (path: string) => request(h.app).get(path).set(bearer(key)),
  post: (path: string, body: unknown) =>
    request(h.app)
      .post(path)
      .set(bearer(key))
      .send(body as object),
  put: (path: string, body: unknown) =>
    request(h.app)
      .put(path)
      .set(bearer(key))
      .send(body as object),
  del: (path: string, body?: unknown) => {
    const r = request(h.app).delete(path).set(bearer(key));
    return body === undefined ? r : r.send(body as object);
  },
});
const createLead = async (body: Record<string, unknown>, key = p.liveKey) => {
  const r = await api(key).post("/v1/leads", body);
  expect([200, 201]).toContain(r.status);
  return r.body.lead as { id: string; email: string };
};
const segment = async (body: Record<string, unknown>, projectId = p.projectId) => {
  const r = await request(h.internal).post(`/admin/projects/${projectId}/segments`).set(ADMIN).send(body);
  expect(r.status).toBe(201);
  return r.body.segment as { id: string; member_count: number };
};
const members = async (segmentId: string) =>
  (await request(h.internal).get(`/admin/projects/${p.projectId}/segments/${segmentId}`).set(ADMIN)).body
    .segment.member_count as number;

describe("POST /v1/leads", () => {
  it("creates (201) then updates (200) one lead, unique by normalised email, original spelling kept", async () => {
    const a = await api().post("/v1/leads", {
      email: "  Ann.Lee@Bücher.DE ",
      first_name: "Ann",
      attributes: { plan: "free", seats: 2 },
      tags: ["trial"],
      subscription: "subscribed",
    });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      success: true,
      created: true,
      lead: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        email: "Ann.Lee@Bücher.DE",
        first_name: "Ann",
        last_name: null,
        phone: null,
        attributes: { plan: "free", seats: 2 },
        tags: ["trial"],
        subscription: "subscribed",
        subscription_changed_at: expect.any(String),
        subscription_source: "api",
        source: "api",
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const b = await api().post("/v1/leads", {
      email: "ann.lee@xn--bcher-kva.de",
      last_name: "Lee",
      attributes: { plan: "pro", seats: null },
      tags: ["trial", "vip"],
    });
    expect(b.status).toBe(200);
    expect(b.body.created).toBe(false);
    expect(b.body.lead).toMatchObject({
      id: a.body.lead.id,
      email: "Ann.Lee@Bücher.DE",
      first_name: "Ann",
      last_name: "Lee",
      attributes: { plan: "pro" },
      tags: ["trial", "vip"],
      subscription: "subscribed",
    });
    expect(await count(h.deps, "leads WHERE project_id = $1", [p.projectId])).toBe(1);
  });

  it("bulk: 1,000 items with one result each (created / updated / invalid with index and reason); 1,001 → 400", async () => {
    const existing = email("old");
    await createLead({ email: existing });
    const leads: unknown[] = Array.from({ length: 1000 }, (_, i) => ({
      email: email("bulk"),
      attributes: { i },
    }));
    leads[3] = { email: existing, first_name: "Known" };
    leads[7] = { email: "nope", first_name: "x" };
    leads[8] = { email: email(), surprise: true };
    leads[9] = "not an object";
    const res = await api().post("/v1/leads", { leads });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, total: 1000, created: 996, updated: 1, invalid: 3 });
    expect(res.body.results).toHaveLength(1000);
    expect(res.body.results[0]).toEqual({
      index: 0,
      status: "created",
      id: expect.any(String),
      email: expect.any(String),
    });
    expect(res.body.results[3]).toMatchObject({ index: 3, status: "updated", email: existing });
    expect(res.body.results[7]).toEqual({
      index: 7,
      status: "invalid",
      email: "nope",
      error: "email: is not a valid email address: nope",
    });
    expect(res.body.results[8]).toMatchObject({
      index: 8,
      status: "invalid",
      error: expect.stringMatching(/surprise/),
    });
    expect(res.body.results[9]).toMatchObject({ index: 9, status: "invalid", email: null });
    expect(await count(h.deps, "leads WHERE project_id = $1", [p.projectId])).toBe(997);

    const tooMany = await api().post("/v1/leads", { leads: [...leads, { email: email() }] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({
      success: false,
      error: "leads: Too many leads: 1001. Maximum is 1000 per request.",
    });
    expect(await count(h.deps, "leads WHERE project_id = $1", [p.projectId])).toBe(997);
  });

  it("the same email twice in one bulk call is applied in order", async () => {
    const to = email();
    const res = await api().post("/v1/leads", {
      leads: [
        { email: to, attributes: { a: 1 } },
        { email: to.toUpperCase(), attributes: { b: 2 } },
      ],
    });
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(["created", "updated"]);
    const lead = await api().get(`/v1/leads/${to}`);
    expect(lead.body.lead.attributes).toEqual({ a: 1, b: 2 });
  });

  it("bad input is a 400 naming the field, never a 500", async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^email: is required$/],
      [{ email: "" }, /^email: /],
      [{ email: "a@b" }, /^email: is not a valid email address/],
      [{ email: email(), first_name: 5 }, /^first_name: /],
      [{ email: email(), subscription: "maybe" }, /^subscription: /],
      [{ email: email(), tags: "vip" }, /^tags: /],
      [{ email: email(), tags: [""] }, /^tags\[0\]: /],
      [{ email: email(), attributes: [] }, /^attributes: /],
      [{ email: email(), attributes: { email: "x" } }, /^attributes: attribute name "email" is reserved$/],
      [{ email: email(), attributes: { ["k".repeat(65)]: 1 } }, /longer than 64/],
      [{ email: email(), attributes: { "bad key": 1 } }, /must start with a letter/],
      [
        { email: email(), attributes: { big: "x".repeat(2 * 1024 * 1024) } },
        /^attributes: is \d+ bytes of JSON; at most 65536$/,
      ],
      [
        { email: email(), attributes: { big: "x".repeat(9000) } },
        /^attributes: big is \d+ bytes of JSON; at most 8192$/,
      ],
      [
        {
          email: email(),
          attributes: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])),
        },
        /101 names; at most 100/,
      ],
      [{ email: email(), phone: "call me" }, /^phone: /],
      [{ email: email(), unknown: 1 }, /unknown/],
      [{ leads: "x" }, /^leads: /],
      [{ leads: [] }, /^leads: /],
    ];
    for (const [body, message] of cases) {
      const r = await api().post("/v1/leads", body);
      expect({ status: r.status, body: r.body }).toEqual({
        status: 400,
        body: { success: false, error: expect.stringMatching(message) },
      });
    }
    const deep = `{"email":"a@b.co","attributes":{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`;
    const r = await request(h.app)
      .post("/v1/leads")
      .set(bearer(p.liveKey))
      .set("content-type", "application/json")
      .send(deep);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/nests deeper/);
    expect(await count(h.deps, "leads WHERE project_id = $1", [p.projectId])).toBe(0);
  });
});

describe("GET /v1/leads", () => {
  it("total_pages for 0, 1, 50, 51 leads; per_page capped at 200", async () => {
    const pag = async (q = {}) => (await api().get("/v1/leads").query(q)).body.pagination;
    expect(await pag()).toEqual({ page: 1, per_page: 50, total: 0, total_pages: 0 });
    await createLead({ email: email() });
    expect(await pag()).toEqual({ page: 1, per_page: 50, total: 1, total_pages: 1 });
    await api().post("/v1/leads", { leads: Array.from({ length: 49 }, () => ({ email: email() })) });
    expect(await pag()).toEqual({ page: 1, per_page: 50, total: 50, total_pages: 1 });
    await createLead({ email: email() });
    expect(await pag()).toEqual({ page: 1, per_page: 50, total: 51, total_pages: 2 });
    expect(await pag({ per_page: 500 })).toEqual({ page: 1, per_page: 200, total: 51, total_pages: 1 });
    const page2 = await api().get("/v1/leads").query({ page: 2 });
    expect(page2.body.data).toHaveLength(1);
  });

  it("filters: email, tag, subscription, attribute equality, created since/until, segment", async () => {
    const ann = await createLead({
      email: email("ann"),
      tags: ["vip"],
      attributes: { plan: "pro", seats: 3 },
      subscription: "subscribed",
    });
    const bob = await createLead({
      email: email("bob"),
      tags: ["trial"],
      attributes: { plan: "free" },
      subscription: "unsubscribed",
    });
    await createLead({ email: email("cy") });
    const ids = async (q: Record<string, string>) =>
      ((await api().get("/v1/leads").query(q)).body.data as { id: string }[]).map((l) => l.id);
    expect(await ids({ email: ann.email.toUpperCase() })).toEqual([ann.id]);
    expect(await ids({ tag: "vip" })).toEqual([ann.id]);
    expect(await ids({ subscription: "unsubscribed" })).toEqual([bob.id]);
    expect((await ids({ subscription: "unknown" })).length).toBe(1);
    expect(await ids({ "attributes[plan]": "free" })).toEqual([bob.id]);
    expect(await ids({ "attributes[seats]": "3", tag: "vip" })).toEqual([ann.id]);
    const created = (await api().get(`/v1/leads/${bob.id}`)).body.lead.created_at as string;
    expect(await ids({ created_since: created })).toContain(bob.id);
    expect(await ids({ created_since: created })).not.toContain(ann.id);
    expect(await ids({ created_until: created })).toEqual([bob.id, ann.id]);
    const s = await segment({ name: "picked", type: "static" });
    await api().post(`/v1/leads/${bob.id}/segments`, { segment_ids: [s.id] });
    expect(await ids({ segment: s.id })).toEqual([bob.id]);
    const otherSeg = await segment({ name: "theirs", type: "static" }, other.projectId);
    const r = await api().get("/v1/leads").query({ segment: otherSeg.id });
    expect(r.status).toBe(404);
    for (const bad of [
      { subscription: "x" },
      { "attributes[email]": "x" },
      { created_since: "x" },
      { zzz: "1" },
      { segment: "x" },
    ]) {
      const b = await api().get("/v1/leads").query(bad);
      expect(b.status).toBe(400);
      expect(b.body.success).toBe(false);
    }
  });
});

describe("/v1/leads/:id", () => {
  it("GET shows the lead with its segments; PUT replaces given fields; DELETE removes the lead and its events", async () => {
    const lead = await createLead({ email: email(), first_name: "A", tags: ["x"], attributes: { a: 1 } });
    const s = await segment({ name: "s1", type: "static" });
    const added = await api().post(`/v1/leads/${lead.id}/segments`, { segment_ids: [s.id] });
    expect(added.status).toBe(200);
    expect(added.body.segments).toEqual([{ id: s.id, name: "s1", type: "static" }]);
    const got = await api().get(`/v1/leads/${lead.id}`);
    expect(got.status).toBe(200);
    expect(got.body.lead).toMatchObject({
      id: lead.id,
      first_name: "A",
      segments: [{ id: s.id, name: "s1", type: "static" }],
    });

    const put = await api().put(`/v1/leads/${lead.id}`, {
      first_name: null,
      tags: ["y"],
      attributes: { b: 2 },
      subscription: "unsubscribed",
    });
    expect(put.status).toBe(200);
    expect(put.body.lead).toMatchObject({
      first_name: null,
      tags: ["y"],
      attributes: { b: 2 },
      subscription: "unsubscribed",
      subscription_source: "api",
    });
    const taken = await createLead({ email: email() });
    const clash = await api().put(`/v1/leads/${lead.id}`, { email: taken.email.toUpperCase() });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatch(/^email: /);
    expect((await api().put(`/v1/leads/${lead.id}`, { attributes: { a: null } })).status).toBe(400);

    await request(h.app).post("/v1/events").set(bearer(p.liveKey)).send({ email: lead.email, event: "x" });
    const del = await api().del(`/v1/leads/${lead.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, id: lead.id, deleted: true, deleted_events: 1 });
    expect(await count(h.deps, "lead_events WHERE lead_id = $1", [lead.id])).toBe(0);
    expect(await count(h.deps, "segment_members WHERE lead_id = $1", [lead.id])).toBe(0);
    expect((await api().get(`/v1/leads/${lead.id}`)).status).toBe(404);
    expect((await api().del(`/v1/leads/${lead.id}`)).status).toBe(404);
  });

  it("segments: a dynamic segment cannot be joined by hand; removal answers 404 once gone", async () => {
    const lead = await createLead({ email: email() });
    const st = await segment({ name: "st", type: "static" });
    const dyn = await segment({ name: "dyn", type: "dynamic", filter: { tag: "vip" } });
    const r = await api().post(`/v1/leads/${lead.id}/segments`, { segment_ids: [dyn.id] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/dynamic/);
    expect((await api().post(`/v1/leads/${lead.id}/segments`, { segment_ids: ["x"] })).status).toBe(400);
    expect((await api().post(`/v1/leads/${lead.id}/segments`, { segment_ids: [] })).status).toBe(400);
    await api().post(`/v1/leads/${lead.id}/segments`, { segment_ids: [st.id, st.id] });
    expect(await members(st.id)).toBe(1);
    const rm = await api().del(`/v1/leads/${lead.id}/segments/${st.id}`);
    expect(rm.status).toBe(200);
    expect(rm.body.segments).toEqual([]);
    expect((await api().del(`/v1/leads/${lead.id}/segments/${st.id}`)).status).toBe(404);
  });
});

describe("tags and attributes by email", () => {
  it("tags: add is idempotent, remove takes a list, GET lists them", async () => {
    const lead = await createLead({ email: email() });
    const path = `/v1/leads/${encodeURIComponent(lead.email)}/tags`;
    expect((await api().post(path, { tags: ["a", "b"] })).body).toEqual({
      success: true,
      email: lead.email,
      tags: ["a", "b"],
    });
    expect((await api().post(path, { tags: ["b", "c", "c"] })).body.tags).toEqual(["a", "b", "c"]);
    expect((await api().del(path, { tags: ["a", "c", "zz"] })).body.tags).toEqual(["b"]);
    expect((await api().get(path)).body).toEqual({ success: true, email: lead.email, tags: ["b"] });
    expect((await api().get(`/v1/leads/${lead.email.toUpperCase()}/tags`)).body.tags).toEqual(["b"]);
    expect((await api().post(path, { tags: [] })).status).toBe(400);
    expect((await api().post(path, { tags: "a" })).status).toBe(400);
    const many = Array.from({ length: 100 }, (_, i) => `t${i}`);
    const full = await api().post(path, { tags: many });
    expect(full.status).toBe(400);
    expect(full.body.error).toMatch(/^tags: a lead holds at most 100 tags$/);
  });

  it("attributes: POST merges, null removes a key, GET reads; limits are a clear 400", async () => {
    const lead = await createLead({ email: email(), attributes: { a: 1, b: "x" } });
    const path = `/v1/leads/${lead.email}/attributes`;
    const merged = await api().post(path, { attributes: { b: null, c: { nested: [1, 2] } } });
    expect(merged.status).toBe(200);
    expect(merged.body).toEqual({
      success: true,
      email: lead.email,
      attributes: { a: 1, c: { nested: [1, 2] } },
    });
    expect((await api().get(path)).body.attributes).toEqual({ a: 1, c: { nested: [1, 2] } });
    const big = await api().post(path, { attributes: { v: "x".repeat(2 * 1024 * 1024) } });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatch(/^attributes: /);
    const reserved = await api().post(path, { attributes: { tags: 1 } });
    expect(reserved.body).toEqual({ success: false, error: 'attributes: attribute name "tags" is reserved' });
    // 99 new names + the 2 it has = 101 > 100: refused whole, nothing changed
    const over = await api().post(path, {
      attributes: Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`k${i}`, i])),
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/at most 100 attributes/);
    expect(Object.keys((await api().get(path)).body.attributes)).toEqual(["a", "c"]);
    expect((await api().post(path, {})).status).toBe(400);
  });

  it("an unknown email is 404 on every by-email route", async () => {
    const e = encodeURIComponent(email("ghost"));
    for (const r of [
      api().get(`/v1/leads/${e}/tags`),
      api().post(`/v1/leads/${e}/tags`, { tags: ["a"] }),
      api().del(`/v1/leads/${e}/tags`, { tags: ["a"] }),
      api().get(`/v1/leads/${e}/attributes`),
      api().post(`/v1/leads/${e}/attributes`, { attributes: { a: 1 } }),
    ]) {
      const res = await r;
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: "Lead not found" });
    }
  });
});

describe("isolation and auth", () => {
  it("another project's lead id or email is 404 on every route, and nothing of it changes", async () => {
    const theirs = await createLead(
      { email: email("theirs"), tags: ["t"], attributes: { k: 1 } },
      other.liveKey,
    );
    const seg = await segment({ name: "their-seg", type: "static" }, other.projectId);
    const mySeg = await segment({ name: "my-seg", type: "static" });
    const mine = await createLead({ email: email("mine") });
    for (const ref of [theirs.id, encodeURIComponent(theirs.email)]) {
      const answers = await Promise.all([
        api().get(`/v1/leads/${ref}`),
        api().put(`/v1/leads/${ref}`, { first_name: "x" }),
        api().del(`/v1/leads/${ref}`),
        api().post(`/v1/leads/${ref}/segments`, { segment_ids: [mySeg.id] }),
        api().del(`/v1/leads/${ref}/segments/${mySeg.id}`),
        api().get(`/v1/leads/${ref}/tags`),
        api().post(`/v1/leads/${ref}/tags`, { tags: ["x"] }),
        api().del(`/v1/leads/${ref}/tags`, { tags: ["t"] }),
        api().get(`/v1/leads/${ref}/attributes`),
        api().post(`/v1/leads/${ref}/attributes`, { attributes: { k: null } }),
      ]);
      for (const a of answers)
        expect({ status: a.status, body: a.body }).toEqual({
          status: 404,
          body: { success: false, error: "Lead not found" },
        });
    }
    // their segment with my lead: 404 too
    expect((await api().post(`/v1/leads/${mine.id}/segments`, { segment_ids: [seg.id] })).status).toBe(404);
    expect((await api().del(`/v1/leads/${mine.id}/segments/${seg.id}`)).status).toBe(404);
    expect((await api().get("/v1/leads").query({ email: theirs.email })).body.data).toEqual([]);
    // an upsert of the same email in my project makes my own lead
    const same = await api().post("/v1/leads", { email: theirs.email });
    expect(same.status).toBe(201);
    expect(same.body.lead.id).not.toBe(theirs.id);
    const still = await api(other.liveKey).get(`/v1/leads/${theirs.id}`);
    expect(still.body.lead).toMatchObject({ tags: ["t"], attributes: { k: 1 }, first_name: null });
  });

  it("every leads route wants a key (spec 5 body)", async () => {
    for (const r of [
      request(h.app).get("/v1/leads"),
      request(h.app).post("/v1/leads").send({ email: email() }),
      request(h.app).get(`/v1/leads/${email()}/tags`),
    ]) {
      const res = await r;
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MSG_INVALID_OR_MISSING_KEY });
    }
  });
});
