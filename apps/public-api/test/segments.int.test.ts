// Segments through the admin API, dynamic membership evaluated at query time. Real: PostgreSQL, Redis, RabbitMQ.
import request from "supertest";
import { bearer, makeProject, startHarness, testEnv, type Harness, type TestProject } from "./helpers";

let h: Harness;
let p: TestProject;
const run = Date.now().toString(36);
let n = 0;
const email = (tag = "s") => `${tag}-${run}-${++n}@example.org`;
const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };

beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
});

const admin = {
  create: (body: unknown, projectId = p.projectId) =>
    request(h.internal)
      .post(`/admin/projects/${projectId}/segments`)
      .set(ADMIN)
      .send(body as object),
  get: (id: string) => request(h.internal).get(`/admin/projects/${p.projectId}/segments/${id}`).set(ADMIN),
};
const track = (to: string, event: string, daysAgo = 0) =>
  request(h.app)
    .post("/v1/events")
    .set(bearer(p.liveKey))
    .send({ email: to, event, timestamp: new Date(Date.now() - daysAgo * 86_400_000).toISOString() });
const upsert = (body: Record<string, unknown>) =>
  request(h.app).post("/v1/leads").set(bearer(p.liveKey)).send(body);
const memberIds = async (segmentId: string) =>
  (
    (await request(h.app).get("/v1/leads").query({ segment: segmentId }).set(bearer(p.liveKey))).body
      .data as {
      email: string;
    }[]
  )
    .map((l) => l.email)
    .sort();

// The example: did `purchase` at least 2 times in the last 30 days, tag vip, and not unsubscribed.
const BUYERS = {
  all: [
    { event: "purchase", min_count: 2, within_days: 30 },
    { tag: "vip" },
    { not: { subscription: "unsubscribed" } },
  ],
};

it("a dynamic segment follows events, tags, subscription and attribute changes at query time", async () => {
  const created = await admin.create({ name: "repeat vip buyers", type: "dynamic", filter: BUYERS });
  expect(created.status).toBe(201);
  expect(created.body.segment).toMatchObject({
    name: "repeat vip buyers",
    type: "dynamic",
    filter: BUYERS,
    member_count: 0,
  });
  const id = created.body.segment.id as string;
  const ann = email("ann");
  await upsert({ email: ann, tags: ["vip"] });
  await track(ann, "purchase");
  expect((await admin.get(id)).body.segment.member_count).toBe(0);
  await track(ann, "purchase", 40); // outside the 30 days: does not count
  expect((await admin.get(id)).body.segment.member_count).toBe(0);
  await track(ann, "purchase", 3);
  expect((await admin.get(id)).body.segment.member_count).toBe(1);
  expect(await memberIds(id)).toEqual([ann]);
  const detail = await request(h.app).get(`/v1/leads/${ann}`).set(bearer(p.liveKey));
  expect(detail.body.lead.segments).toEqual([{ id, name: "repeat vip buyers", type: "dynamic" }]);

  await upsert({ email: ann, subscription: "unsubscribed" });
  expect((await admin.get(id)).body.segment.member_count).toBe(0);
  await upsert({ email: ann, subscription: "subscribed" });
  expect((await admin.get(id)).body.segment.member_count).toBe(1);
  await request(h.app)
    .delete(`/v1/leads/${ann}/tags`)
    .set(bearer(p.liveKey))
    .send({ tags: ["vip"] });
  expect((await admin.get(id)).body.segment.member_count).toBe(0);

  const plan = await admin.create({
    name: "pro with seats",
    type: "dynamic",
    filter: {
      all: [
        { attribute: "plan", op: "eq", value: "pro" },
        { attribute: "seats", op: "gte", value: 5 },
      ],
    },
  });
  const planId = plan.body.segment.id as string;
  await upsert({ email: ann, attributes: { plan: "pro", seats: 4 } });
  expect((await admin.get(planId)).body.segment.member_count).toBe(0);
  await request(h.app)
    .post(`/v1/leads/${ann}/attributes`)
    .set(bearer(p.liveKey))
    .send({ attributes: { seats: 5 } });
  expect((await admin.get(planId)).body.segment.member_count).toBe(1);
  await request(h.app)
    .post(`/v1/leads/${ann}/attributes`)
    .set(bearer(p.liveKey))
    .send({ attributes: { plan: null } });
  expect((await admin.get(planId)).body.segment.member_count).toBe(0);
});

it("any / not / max_count / exists / contains compile to the right membership", async () => {
  const a = email("a");
  const b = email("b");
  await upsert({ email: a, attributes: { city: "Berlin" } });
  await upsert({ email: b });
  await track(b, "login");
  const seg = async (filter: unknown) => {
    const r = await admin.create({ name: `f-${++n}`, type: "dynamic", filter });
    expect(r.status).toBe(201);
    return memberIds(r.body.segment.id);
  };
  expect(
    await seg({ any: [{ attribute: "city", op: "contains", value: "erl" }, { event: "login" }] }),
  ).toEqual([a, b].sort());
  expect(await seg({ event: "login", min_count: 0, max_count: 0 })).toEqual([a]);
  expect(await seg({ not: { attribute: "city", op: "exists" } })).toEqual([b]);
  expect(await seg({ attribute: "city", op: "neq", value: "Berlin" })).toEqual([b]);
  expect(await seg({ subscription: "unknown" })).toEqual([a, b].sort());
});

it("admin: filters are validated (never SQL text), names are unique per project, lists carry live counts", async () => {
  for (const [body, msg] of [
    [{ name: "x", type: "dynamic" }, /filter: a dynamic segment needs a filter/],
    [{ name: "x", type: "static", filter: { tag: "a" } }, /static segment has no filter/],
    [{ name: "x", type: "dynamic", filter: { sql: "1=1; DROP TABLE leads" } }, /filter/],
    [{ name: "x", type: "dynamic", filter: { attribute: "a'; --", op: "eq", value: 1 } }, /attribute/],
    [{ name: "x", type: "dynamic", filter: { attribute: "n", op: "gt", value: "five" } }, /number/],
    [{ name: "", type: "static" }, /name/],
  ] as [unknown, RegExp][]) {
    const r = await admin.create(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(msg);
  }
  expect((await admin.create({ name: "dup", type: "static" })).status).toBe(201);
  const dup = await admin.create({ name: "dup", type: "static" });
  expect(dup.status).toBe(409);
  const list = await request(h.internal).get(`/admin/projects/${p.projectId}/segments`).set(ADMIN);
  expect(list.body.segments).toEqual([
    expect.objectContaining({ name: "dup", type: "static", member_count: 0 }),
  ]);
  const otherProject = await makeProject(h.deps);
  const theirs = await request(h.internal)
    .get(`/admin/projects/${otherProject.projectId}/segments/${list.body.segments[0].id}`)
    .set(ADMIN);
  expect(theirs.status).toBe(404);
});
