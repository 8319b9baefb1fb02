// Issue 45: the admin API behind the dashboard's suppressions page, scoped by project: the list (address order,
// searched by the start of the address, by reason, keyset-paged), adding one by hand, lifting one by id or address,
// and what that changes for a send. Real: PostgreSQL, Redis, RabbitMQ (the send goes through v1).
import request from "supertest";
import {
  bearer,
  makeProject,
  startHarness,
  suppress,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";

let h: Harness;
let p: TestProject;
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

const base = () => `/admin/projects/${p.projectId}/suppressions`;
const list = (query = "") => request(h.internal).get(`${base()}${query}`).set(ADMIN);
const add = (body: object) => request(h.internal).post(base()).set(ADMIN).send(body);
const emails = (res: request.Response) => res.body.suppressions.map((s: { email: string }) => s.email);

it("lists suppressions in address order with reason and date, searched by prefix and reason, a keyset page at a time", async () => {
  await suppress(h.deps, p.projectId, "bob@example.org", "bounce");
  await suppress(h.deps, p.projectId, "ann@example.org", "complaint");
  await suppress(h.deps, p.projectId, "anna_b@example.org", "unsubscribed");
  await suppress(h.deps, (await makeProject(h.deps)).projectId, "ann@other.example", "bounce");

  const all = await list();
  expect(all.status).toBe(200);
  expect(emails(all)).toEqual(["ann@example.org", "anna_b@example.org", "bob@example.org"]);
  expect(all.body.suppressions[2]).toMatchObject({ email: "bob@example.org", reason: "bounce" });
  expect(new Date(all.body.suppressions[2].created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);

  expect(emails(await list("?search=ANN"))).toEqual(["ann@example.org", "anna_b@example.org"]);
  // LIKE's wildcards are taken literally
  expect(emails(await list("?search=anna_"))).toEqual(["anna_b@example.org"]);
  expect(emails(await list("?search=ann%25"))).toEqual([]);
  expect(emails(await list("?reason=complaint"))).toEqual(["ann@example.org"]);
  expect((await list("?reason=spam")).status).toBe(400);

  const first = await list("?limit=2");
  expect(emails(first)).toEqual(["ann@example.org", "anna_b@example.org"]);
  const second = await list(`?limit=2&cursor=${first.body.next_cursor}`);
  expect(emails(second)).toEqual(["bob@example.org"]);
  expect(second.body.next_cursor).toBeNull();
});

it("adds one by hand (manual, lower-cased), says when it is there already, and a send to it is then skipped", async () => {
  const res = await add({ email: "Carol@Example.org" });
  expect(res.status).toBe(201);
  expect(res.body.suppression).toMatchObject({ email: "carol@example.org", reason: "manual" });
  const twice = await add({ email: "carol@example.org", reason: "bounce" });
  expect(twice.status).toBe(409);
  expect(twice.body.error).toMatch(/^carol@example\.org is already suppressed \(manual, since /);
  expect((await add({ email: "not an address" })).status).toBe(400);
  expect((await add({ email: "d@example.org", reason: "spam" })).status).toBe(400);

  const send = await request(h.app).post("/v1/send-email").set(bearer(p.liveKey)).send({
    recipient_email: "carol@example.org",
    sender_email: p.sender,
    subject: "Hi",
    html_body: "<p>x</p>",
  });
  expect(send.status).toBe(200);
  expect(send.body).toMatchObject({ skipped: true, suppression_reason: "manual" });
});

it("lifts one by id or by address; an address not on the list is 404; another project's stays", async () => {
  const a = await add({ email: "dan@example.org" });
  await add({ email: "eve@example.org" });
  const other = await makeProject(h.deps);
  await suppress(h.deps, other.projectId, "eve@example.org", "bounce");

  const byId = await request(h.internal).delete(`${base()}/${a.body.suppression.id}`).set(ADMIN);
  expect(byId.status).toBe(200);
  expect(byId.body.removed).toMatchObject({ email: "dan@example.org", reason: "manual" });
  const byAddress = await request(h.internal)
    .delete(`${base()}/${encodeURIComponent("EVE@example.org")}`)
    .set(ADMIN);
  expect(byAddress.status).toBe(200);
  expect(emails(await list())).toEqual([]);
  const gone = await request(h.internal).delete(`${base()}/eve@example.org`).set(ADMIN);
  expect(gone.status).toBe(404);
  expect(gone.body.error).toBe("eve@example.org is not on this project's suppression list");

  const theirs = await request(h.internal).get(`/admin/projects/${other.projectId}/suppressions`).set(ADMIN);
  expect(emails(theirs)).toEqual(["eve@example.org"]);
});
