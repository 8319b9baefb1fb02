// Issue 45: the admin API's activity log behind the dashboard: the live view hides test sends (spec 2), filters,
// keyset pages, and one activity's detail. Real: PostgreSQL, Redis, RabbitMQ (the sends are accepted as by v1).
import request from "supertest";
import { bearer, makeProject, startHarness, testEnv, type Harness } from "./helpers";

let h: Harness;
const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const run = Date.now().toString(36);

beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(async () => {
  await h?.close();
});

const send = (key: string, sender: string, to: string) =>
  request(h.app)
    .post("/v1/send-email")
    .set(bearer(key))
    .send({ recipient_email: to, sender_email: sender, subject: `Hi ${to}`, html_body: "<p>hello</p>" });

it("lists live and test activities apart, filtered and keyset-paged, and shows one with what was sent", async () => {
  const p = await makeProject(h.deps);
  for (let i = 0; i < 3; i++)
    expect((await send(p.liveKey, p.sender, `live${i}-${run}@example.org`)).status).toBe(200);
  for (let i = 0; i < 2; i++)
    expect((await send(p.testKey, p.sender, `test${i}-${run}@example.org`)).status).toBe(200);
  const list = (query: string) =>
    request(h.internal).get(`/admin/projects/${p.projectId}/activities${query}`).set(ADMIN);

  const live = await list("");
  expect(live.status).toBe(200);
  expect(live.body.mode).toBe("live");
  expect(live.body.activities.map((a: { recipient: string }) => a.recipient)).toEqual([
    `live2-${run}@example.org`,
    `live1-${run}@example.org`,
    `live0-${run}@example.org`,
  ]);
  expect(live.body.activities[0]).toMatchObject({
    subject: `Hi live2-${run}@example.org`,
    from: p.sender,
    source: "api",
  });
  const test = await list("?mode=test");
  expect(test.body.activities).toHaveLength(2);

  const first = await list("?limit=2");
  expect(first.body.activities).toHaveLength(2);
  expect(first.body.next_cursor).toEqual(expect.any(String));
  const second = await list(`?limit=2&cursor=${first.body.next_cursor}`);
  expect(second.body.activities.map((a: { recipient: string }) => a.recipient)).toEqual([
    `live0-${run}@example.org`,
  ]);
  expect(second.body.next_cursor).toBeNull();

  const one = await list(`?recipient=LIVE1-${run}@EXAMPLE.ORG`);
  expect(one.body.activities.map((a: { recipient: string }) => a.recipient)).toEqual([
    `live1-${run}@example.org`,
  ]);
  expect((await list("?status=bogus")).status).toBe(400);
  expect((await list("?cursor=nonsense")).status).toBe(400);
  const queued = await list("?status=queued,sending,sent,delivered");
  expect(queued.body.activities.length).toBe(3);

  const id = live.body.activities[0].id as string;
  const detail = await request(h.internal).get(`/admin/projects/${p.projectId}/activities/${id}`).set(ADMIN);
  expect(detail.status).toBe(200);
  expect(detail.body.activity).toMatchObject({ id, is_test: false, html: "<p>hello</p>" });
  expect(detail.body.events).toEqual(expect.any(Array));
  expect(detail.body.webhook_deliveries).toEqual(expect.any(Array));
  // another project's activity is not this project's
  const other = await makeProject(h.deps);
  expect(
    (await request(h.internal).get(`/admin/projects/${other.projectId}/activities/${id}`).set(ADMIN)).status,
  ).toBe(404);
});
