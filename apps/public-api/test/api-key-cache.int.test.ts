// Spec 5.5: "A regenerated key invalidates the previous one at once", on every replica, although each replica
// keeps found keys in a short in-process cache. Real: PostgreSQL, Redis (pub/sub), two public-api instances.
import request from "supertest";
import {
  bearer,
  makeProject,
  startHarness,
  testEnv,
  type Harness,
  type TestProject,
  waitFor,
} from "./helpers";

const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
let a: Harness;
let b: Harness;
let down: Harness;
let p: TestProject;

beforeAll(async () => {
  a = await startHarness(testEnv());
  b = await startHarness(testEnv());
  // Port 1 on loopback: connection refused at once, as for a Redis that is down.
  down = await startHarness(testEnv({ REDIS_URL: "redis://127.0.0.1:1/0" }), { redisDown: true });
});
afterAll(async () => {
  await down?.close();
  await b?.close();
  await a?.close();
});
beforeEach(async () => {
  p = await makeProject(a.deps);
});

const dryRun = (h: Harness, key: string) =>
  request(h.app).post("/v1/send-email").set(bearer(key)).send({
    recipient_email: "ann@example.org",
    sender_email: p.sender,
    html_body: "<p>x</p>",
    dry_run: true,
  });
const regenerate = async (h: Harness, mode: "live" | "test"): Promise<string> => {
  const res = await request(h.internal)
    .post(`/admin/projects/${p.projectId}/keys/${mode}/regenerate`)
    .set(ADMIN);
  expect(res.status).toBe(200);
  return res.body.key as string;
};

describe("API key cache", () => {
  it("every replica refuses a regenerated key at once, though each had it cached", async () => {
    await waitFor(() => a.deps.apiKeys.listening() && b.deps.apiKeys.listening());
    expect((await dryRun(a, p.testKey)).status).toBe(200);
    expect((await dryRun(b, p.testKey)).status).toBe(200); // served from b's cache

    const fresh = await regenerate(a, "test");
    expect((await dryRun(a, p.testKey)).status).toBe(401);
    // b learns of it through Redis within milliseconds, far inside the cache's 10 s lifetime
    const t0 = Date.now();
    await waitFor(async () => (await dryRun(b, p.testKey)).status === 401, 2_000);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect((await dryRun(b, fresh)).status).toBe(200);
    expect((await dryRun(b, p.liveKey)).status).toBe(200); // the other mode's key is untouched
  });

  it("a replica without Redis asks the database every time, so it refuses the old key at once too", async () => {
    expect(down.deps.apiKeys.listening()).toBe(false);
    expect((await dryRun(down, p.liveKey)).status).toBe(200);
    await regenerate(a, "live");
    expect((await dryRun(down, p.liveKey)).status).toBe(401);
  });
});
