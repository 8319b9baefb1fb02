// Issue 45: the admin API behind the dashboard's webhooks page, scoped by project: deliveries (live or test,
// filtered, keyset-paged), one delivery with its attempts, redeliver on the project's route (and still on the
// platform's), and each receiver URL's failing state. Real: PostgreSQL, Redis, RabbitMQ; the deliveries and attempts
// are rows the webhook-dispatcher would have written, inserted here.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { makeProject, startHarness, testEnv, type Harness, type TestProject } from "./helpers";

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

const api = (path: string) => request(h.internal).get(`/admin/projects/${p.projectId}${path}`).set(ADMIN);

/** A delivery as the dispatcher stores it, `ageS` seconds old. */
async function delivery(
  o: { status: string; event?: string; isTest?: boolean; ageS?: number; projectId?: string } = {
    status: "exhausted",
  },
): Promise<string> {
  const id = randomUUID();
  await h.deps.db.pool.query(
    `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, attempts,
                                     last_status_code, created_at, updated_at)
     VALUES ($1, $2, $3, 'outbound', $4, $5, 'https://hooks.example/live', $6, $7, 5, 500,
             now() - $8 * interval '1 second', now())`,
    [
      id,
      o.projectId ?? p.projectId,
      randomUUID(),
      o.event ?? "email.delivered",
      o.isTest ?? false,
      JSON.stringify({ type: o.event ?? "email.delivered", data: { activity_id: randomUUID() } }),
      o.status,
      o.ageS ?? 0,
    ],
  );
  return id;
}

it("lists a project's deliveries newest first, live or test, by status and event, a keyset page at a time", async () => {
  const exhausted = await delivery({ status: "exhausted", ageS: 30 });
  const succeeded = await delivery({ status: "succeeded", event: "email.bounced", ageS: 20 });
  const pending = await delivery({ status: "pending", ageS: 10 });
  const test = await delivery({ status: "succeeded", isTest: true });
  await delivery({ status: "exhausted", projectId: (await makeProject(h.deps)).projectId });

  const all = await api("/webhook-deliveries");
  expect(all.status).toBe(200);
  expect(all.body.deliveries.map((d: { id: string }) => d.id)).toEqual([pending, succeeded, exhausted]);
  expect(all.body.deliveries[2]).toMatchObject({
    event: "email.delivered",
    status: "exhausted",
    attempts: 5,
    last_status_code: 500,
    url: "https://hooks.example/live",
    is_test: false,
  });
  expect(
    (await api("/webhook-deliveries?mode=test")).body.deliveries.map((d: { id: string }) => d.id),
  ).toEqual([test]);
  const failedOnes = await api("/webhook-deliveries?status=exhausted,failed");
  expect(failedOnes.body.deliveries.map((d: { id: string }) => d.id)).toEqual([exhausted]);
  const bounced = await api("/webhook-deliveries?event=email.bounced");
  expect(bounced.body.deliveries.map((d: { id: string }) => d.id)).toEqual([succeeded]);

  const first = await api("/webhook-deliveries?limit=2");
  expect(first.body.deliveries.map((d: { id: string }) => d.id)).toEqual([pending, succeeded]);
  const second = await api(`/webhook-deliveries?limit=2&cursor=${first.body.next_cursor}`);
  expect(second.body.deliveries.map((d: { id: string }) => d.id)).toEqual([exhausted]);
  expect(second.body.next_cursor).toBeNull();

  expect((await api("/webhook-deliveries?status=bogus")).status).toBe(400);
  expect((await api("/webhook-deliveries?cursor=nonsense")).status).toBe(400);
  expect((await api("/webhook-deliveries?mode=both")).status).toBe(400);
});

it("shows one delivery with its attempts: status code, duration, error and the first 500 characters of the answer", async () => {
  const id = await delivery({ status: "exhausted" });
  const long = "x".repeat(600);
  await h.deps.db.pool.query(
    `INSERT INTO webhook_attempts (id, delivery_id, project_id, attempt_number, status_code, response_body, duration_ms, error, created_at)
     VALUES (gen_random_uuid(), $1, $2, 1, NULL, NULL, 10000, 'timed out after 10 s', now() - interval '2 minutes'),
            (gen_random_uuid(), $1, $2, 2, 500, $3, 42, NULL, now() - interval '1 minute')`,
    [id, p.projectId, long],
  );
  const res = await api(`/webhook-deliveries/${id}`);
  expect(res.status).toBe(200);
  expect(res.body.delivery).toMatchObject({ id, status: "exhausted", event: "email.delivered" });
  expect(JSON.parse(res.body.delivery.body).type).toBe("email.delivered");
  expect(res.body.attempts).toEqual([
    expect.objectContaining({
      attempt: 1,
      status_code: null,
      duration_ms: 10000,
      error: "timed out after 10 s",
    }),
    expect.objectContaining({ attempt: 2, status_code: 500, duration_ms: 42, error: null }),
  ]);
  expect(res.body.attempts[1].response_excerpt).toBe("x".repeat(500));

  // another project's delivery is not this project's
  const other = await makeProject(h.deps);
  expect(
    (await request(h.internal).get(`/admin/projects/${other.projectId}/webhook-deliveries/${id}`).set(ADMIN))
      .status,
  ).toBe(404);
  expect((await api("/webhook-deliveries/not-a-uuid")).status).toBe(404);
});

it("redelivers a finished delivery on the project's route, not another project's; the platform route still works", async () => {
  await request(h.internal)
    .patch(`/admin/projects/${p.projectId}`)
    .set(ADMIN)
    .send({ webhook_url: "https://hooks.example/live" })
    .expect(200);
  const id = await delivery({ status: "exhausted" });
  const other = await makeProject(h.deps);
  const elsewhere = await request(h.internal)
    .post(`/admin/projects/${other.projectId}/webhook-deliveries/${id}/redeliver`)
    .set(ADMIN);
  expect(elsewhere.status).toBe(404);

  const res = await request(h.internal)
    .post(`/admin/projects/${p.projectId}/webhook-deliveries/${id}/redeliver`)
    .set(ADMIN);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ success: true, delivery_id: id, status: "pending" });
  const shown = await api(`/webhook-deliveries/${id}`);
  expect(shown.body.delivery).toMatchObject({ status: "pending", attempts: 0 });
  // pending now: a second redeliver waits until it is finished
  const again = await request(h.internal)
    .post(`/admin/projects/${p.projectId}/webhook-deliveries/${id}/redeliver`)
    .set(ADMIN);
  expect(again.status).toBe(409);

  const platform = await request(h.internal)
    .post(`/admin/webhook-deliveries/${await delivery({ status: "exhausted" })}/redeliver`)
    .set(ADMIN);
  expect(platform.status).toBe(200);
});

it("shows each receiver URL with since when it has been failing", async () => {
  await request(h.internal)
    .patch(`/admin/projects/${p.projectId}`)
    .set(ADMIN)
    .send({
      webhook_url: "https://hooks.example/live",
      inbound_webhook_url_dev: "https://hooks.example/in-dev",
    })
    .expect(200);
  const since = new Date("2026-01-02T03:04:05.000Z");
  await h.deps.db.pool.query("UPDATE projects SET webhook_failing_since = $2 WHERE id = $1", [
    p.projectId,
    since,
  ]);
  const res = await api("/webhook-endpoints");
  expect(res.status).toBe(200);
  expect(res.body.endpoints).toEqual([
    {
      setting: "webhook_url",
      kind: "outbound",
      mode: "live",
      url: "https://hooks.example/live",
      failing_since: since.toISOString(),
    },
    { setting: "webhook_url_dev", kind: "outbound", mode: "test", url: null, failing_since: null },
    { setting: "inbound_webhook_url", kind: "inbound", mode: "live", url: null, failing_since: null },
    {
      setting: "inbound_webhook_url_dev",
      kind: "inbound",
      mode: "test",
      url: "https://hooks.example/in-dev",
      failing_since: null,
    },
  ]);
  expect(
    (await request(h.internal).get(`/admin/projects/${randomUUID()}/webhook-endpoints`).set(ADMIN)).status,
  ).toBe(404);
});
