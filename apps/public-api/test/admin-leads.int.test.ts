// Issue 46, item 1: the admin API behind the dashboard's leads and segments pages: the list's attribute filter,
// one lead, its changes (through the v1 routes' use cases), its timeline (events and the emails sent to it,
// keyset-paged across both), the segment builder's preview count, and each change in the audit log. Real:
// PostgreSQL, Redis, RabbitMQ (leads, events and sends go through v1). A viewer's 403 on each new write is
// accounts.int.test.ts's (every admin route of the OpenAPI document).
import request from "supertest";
import { randomUUID } from "node:crypto";
import { connectShopFromDelivery, countCappedWithin } from "@emailsvc/db";
import { bearer, makeProject, startHarness, testEnv, type Harness, type TestProject } from "./helpers";

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

const base = () => `/admin/projects/${p.projectId}`;
const upsert = (body: Record<string, unknown>) =>
  request(h.app).post("/v1/leads").set(bearer(p.liveKey)).send(body);
const track = (email: string, event: string, at: Date) =>
  request(h.app)
    .post("/v1/events")
    .set(bearer(p.liveKey))
    .send({ email, event, timestamp: at.toISOString() });
const preview = (filter: unknown) =>
  request(h.internal).post(`${base()}/segments/preview`).set(ADMIN).send({ filter });

it("lists leads filtered by attributes (attributes[name]=value) with whether the total is exact", async () => {
  await upsert({ email: "ann@example.org", attributes: { plan: "pro" } });
  await upsert({ email: "bob@example.org", attributes: { plan: "free" } });
  const res = await request(h.internal)
    .get(`${base()}/leads`)
    .query({ "attributes[plan]": "pro" })
    .set(ADMIN);
  expect(res.status).toBe(200);
  expect(res.body.data.map((l: { email: string }) => l.email)).toEqual(["ann@example.org"]);
  expect(res.body.total_exact).toBe(true);
  expect(res.body.pagination.total).toBe(1);
});

it("shows, edits, tags, untags and deletes a lead, each change in the audit log", async () => {
  const made = await upsert({ email: "carol@example.org", first_name: "Carol", tags: ["a"] });
  const id = made.body.lead.id as string;
  const lead = `${base()}/leads/${id}`;

  const got = await request(h.internal).get(lead).set(ADMIN);
  expect(got.status).toBe(200);
  expect(got.body.lead).toMatchObject({ email: "carol@example.org", tags: ["a"], segments: [] });
  expect((await request(h.internal).get(`${base()}/leads/carol@example.org`).set(ADMIN)).body.lead.id).toBe(
    id,
  );

  const put = await request(h.internal)
    .put(lead)
    .set(ADMIN)
    .send({ first_name: "Caroline", attributes: { plan: "pro" } });
  expect(put.status).toBe(200);
  expect(put.body.lead).toMatchObject({ first_name: "Caroline", attributes: { plan: "pro" } });
  expect((await request(h.internal).put(lead).set(ADMIN).send({ attributes: "x" })).status).toBe(400);

  const tagged = await request(h.internal)
    .post(`${lead}/tags`)
    .set(ADMIN)
    .send({ tags: ["vip"] });
  expect(tagged.body.tags).toEqual(["a", "vip"]);
  const untagged = await request(h.internal)
    .delete(`${lead}/tags`)
    .set(ADMIN)
    .send({ tags: ["a"] });
  expect(untagged.body.tags).toEqual(["vip"]);

  const deleted = await request(h.internal).delete(lead).set(ADMIN);
  expect(deleted.body).toMatchObject({ success: true, id, deleted: true });
  expect((await request(h.internal).get(lead).set(ADMIN)).status).toBe(404);
  // another project's lead is not found
  const other = await makeProject(h.deps);
  expect(
    (await request(h.internal).get(`/admin/projects/${other.projectId}/leads/${id}`).set(ADMIN)).status,
  ).toBe(404);

  await new Promise((r) => setTimeout(r, 300));
  const log = await request(h.internal).get(`${base()}/audit-events`).set(ADMIN);
  const seen = (log.body.events as { action: string; route: string; status: number }[])
    .map((e) => `${e.action} | ${e.route} | ${e.status}`)
    .sort();
  expect(seen).toEqual(
    [
      "leads.update | PUT /admin/projects/:id/leads/:id | 200",
      "leads.update | PUT /admin/projects/:id/leads/:id | 400",
      "leads.tags.create | POST /admin/projects/:id/leads/:id/tags | 200",
      "leads.tags.delete | DELETE /admin/projects/:id/leads/:id/tags | 200",
      "leads.delete | DELETE /admin/projects/:id/leads/:id | 200",
    ].sort(),
  );
});

it("a lead's timeline merges its events and the emails sent to it, newest first, keyset-paged", async () => {
  await upsert({ email: "dan@example.org" });
  const t0 = Date.now() - 3_600_000;
  for (let i = 0; i < 3; i++)
    expect((await track("dan@example.org", `step-${i}`, new Date(t0 + i * 1000))).status).toBeLessThan(300);
  const send = await request(h.app).post("/v1/send-email").set(bearer(p.liveKey)).send({
    recipient_email: "Dan@example.org",
    sender_email: p.sender,
    subject: "Welcome, Dan",
    html_body: "<p>x</p>",
  });
  expect(send.status).toBe(200);
  // someone else's email is not in it
  await request(h.app).post("/v1/send-email").set(bearer(p.liveKey)).send({
    recipient_email: "eve@example.org",
    sender_email: p.sender,
    subject: "Not Dan's",
    html_body: "<p>x</p>",
  });

  const timeline = (q: Record<string, string>) =>
    request(h.internal).get(`${base()}/leads/dan@example.org/timeline`).query(q).set(ADMIN);
  const first = await timeline({ limit: "2" });
  expect(first.status).toBe(200);
  expect(first.body.items.map((i: { kind: string }) => i.kind)).toEqual(["email", "event"]);
  expect(first.body.items[0]).toMatchObject({ subject: "Welcome, Dan", status: expect.any(String) });
  expect(first.body.items[1]).toMatchObject({ name: "step-2" });
  const second = await timeline({ limit: "2", cursor: first.body.next_cursor });
  expect(second.body.items.map((i: { name: string }) => i.name)).toEqual(["step-1", "step-0"]);
  expect(second.body.next_cursor).toBeNull();
  expect((await timeline({ cursor: "nonsense" })).status).toBe(400);
});

it("previews a dynamic filter's member count before it is saved, exact on a small project", async () => {
  await upsert({ email: "f1@example.org", tags: ["vip"], attributes: { plan: "pro" } });
  await upsert({ email: "f2@example.org", tags: ["vip"], attributes: { plan: "free" } });
  await upsert({ email: "f3@example.org", attributes: { plan: "pro" } });
  await track("f3@example.org", "purchase", new Date());

  expect((await preview({ tag: "vip" })).body).toEqual({ success: true, count: 2, exact: true });
  expect(
    (await preview({ all: [{ tag: "vip" }, { attribute: "plan", op: "eq", value: "pro" }] })).body.count,
  ).toBe(1);
  expect(
    (await preview({ any: [{ tag: "vip" }, { event: "purchase", min_count: 1, within_days: 7 }] })).body
      .count,
  ).toBe(3);
  const bad = await preview({ attribute: "plan", op: "gt", value: "x" });
  expect(bad.status).toBe(400);

  // a count only reads: the audit log, which records changes, holds none of these previews
  await new Promise((r) => setTimeout(r, 300));
  const log = await request(h.internal).get(`${base()}/audit-events`).set(ADMIN);
  expect(log.status).toBe(200);
  expect(log.body.events.map((e: { action: string }) => e.action)).not.toContain("segments.preview");
});

it("answers the planner's estimate, marked inexact, when the exact count would overrun its budget", async () => {
  // a selective filter over 20 M rows: the capped count would read them all (seconds); 200 ms is its budget
  const started = Date.now();
  const out = await countCappedWithin(
    h.deps.db,
    "generate_series(1, 20000000) g WHERE g % 1000003 = 1000002",
    [],
    200,
  );
  expect(Date.now() - started).toBeLessThan(1000);
  expect(out.exact).toBe(false);
  expect(out.total).toBeGreaterThan(0);
  // the connection went back to the pool usable, its timeout gone with the transaction
  const { rows } = await h.deps.db.pool.query<{ t: string }>("SHOW statement_timeout");
  expect(rows[0]!.t).not.toBe("200ms");
});

it("a lead's timeline holds the replies to its emails and its shop orders", async () => {
  const lead = (await upsert({ email: "gil@example.org" })).body.lead as { id: string };
  await request(h.app).post("/v1/send-email").set(bearer(p.liveKey)).send({
    recipient_email: "gil@example.org",
    sender_email: p.sender,
    subject: "Your order",
    html_body: "<p>x</p>",
  });
  const db = h.deps.db;
  const [activity] = (
    await db.pool.query<{ id: string; email_message_id: string }>(
      "SELECT id, email_message_id FROM activities WHERE project_id = $1 AND recipient = 'gil@example.org'",
      [p.projectId],
    )
  ).rows;
  // what inbound-mail writes for a reply to that send (as threads.int.test.ts seeds it)
  const threadId = randomUUID();
  await db.pool.query(
    `INSERT INTO inbound_threads (id, project_id, activity_id, email_message_id, email_type, subject, normalized_subject,
       participants, message_count, last_message_at)
     VALUES ($1, $2, $3, $4, 'transactional', 'Your order', 'your order', ARRAY['gil@example.org'], 1, now())`,
    [threadId, p.projectId, activity!.id, activity!.email_message_id],
  );
  const replyId = randomUUID();
  await db.pool.query(
    `INSERT INTO inbound_messages (id, project_id, thread_id, activity_id, dedupe_key, ses_message_id, from_email, "to",
       recipient, subject, text_body, html_body, reply_text, kind, verdicts, forward, size, received_at)
     VALUES ($1, $2, $3, $4, $5, 'ses-1', 'gil@example.org', '[]', 'r@inbound.test', 'Re: Your order',
       'Where is it?', '', 'Where is it?', 'reply', '{}', 'queued', 10, now() + interval '1 minute')`,
    [replyId, p.projectId, threadId, activity!.id, `dedupe-${replyId}`],
  );
  // what shop-ingest writes for an order of the lead (and one of another lead, not shown)
  const shop = await connectShopFromDelivery(db, p.projectId, `gil-${randomUUID()}.myshop.test`);
  const other = (await upsert({ email: "hal@example.org" })).body.lead as { id: string };
  for (const [orderId, leadId] of [
    ["1001", lead.id],
    ["1002", other.id],
  ] as const)
    await db.pool.query(
      `INSERT INTO shop_orders (id, project_id, shop_id, order_id, email, lead_id, total_minor, currency, placed_at)
       VALUES ($1, $2, $3, $4, 'x@example.org', $5, 4250, 'EUR', now() + interval '2 minutes')`,
      [randomUUID(), p.projectId, shop!.id, orderId, leadId],
    );

  const res = await request(h.internal).get(`${base()}/leads/${lead.id}/timeline`).set(ADMIN);
  expect(res.status).toBe(200);
  expect(res.body.items.map((i: { kind: string }) => i.kind)).toEqual(["order", "reply", "email"]);
  expect(res.body.items[0]).toMatchObject({ order_id: "1001", total_minor: "4250", currency: "EUR" });
  expect(res.body.items[1]).toMatchObject({ thread_id: threadId, reply_text: "Where is it?" });
  expect(res.body.items[2]).toMatchObject({ id: activity!.id, subject: "Your order" });
});
