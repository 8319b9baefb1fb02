// Per-key rate limits of the events and leads endpoints (spec 8), shared through Redis; fail-open without it.
// Real: Redis (and a closed port for "Redis down"), PostgreSQL, RabbitMQ.
import request from "supertest";
import { bearer, makeProject, startHarness, testEnv, type Harness } from "./helpers";

let limited: Harness;
let replica: Harness;
let down: Harness;
const run = Date.now().toString(36);

beforeAll(async () => {
  const env = { EVENTS_RATE_LIMIT: "3", LEADS_RATE_LIMIT: "2", RATE_LIMIT_WINDOW_MS: "60000" };
  limited = await startHarness(testEnv(env));
  // a second replica: the counter lives in Redis, so both count against one budget
  replica = await startHarness(testEnv(env));
  down = await startHarness(testEnv({ ...env, REDIS_URL: "redis://127.0.0.1:1/0" }), { redisDown: true });
});
afterAll(async () => {
  await down?.close();
  await replica?.close();
  await limited?.close();
});

const track = (h: Harness, key: string, i: number) =>
  request(h.app)
    .post("/v1/events")
    .set(bearer(key))
    .send({ email: `rl-${run}-${i}@example.org`, event: "x" });

it("past the limit: 429 with Retry-After and RateLimit-* headers, counted across replicas, per key", async () => {
  const p = await makeProject(limited.deps);
  const a = await track(limited, p.liveKey, 1);
  expect(a.status).toBe(201);
  expect(a.headers["ratelimit-limit"]).toBe("3");
  expect(a.headers["ratelimit-remaining"]).toBe("2");
  expect(Number(a.headers["ratelimit-reset"])).toBeGreaterThan(0);
  expect(Number(a.headers["ratelimit-reset"])).toBeLessThanOrEqual(60);
  expect((await track(replica, p.liveKey, 2)).headers["ratelimit-remaining"]).toBe("1");
  const third = await request(limited.app).get("/v1/events").set(bearer(p.liveKey));
  expect(third.status).toBe(200);
  expect(third.headers["ratelimit-remaining"]).toBe("0");
  const over = await request(replica.app)
    .post("/v1/events/bulk")
    .set(bearer(p.liveKey))
    .send({ events: [{ email: `rl-${run}@example.org`, event: "x" }] });
  expect(over.status).toBe(429);
  expect(over.body).toEqual({
    success: false,
    error: "Rate limit exceeded: at most 3 requests per minute per API key",
  });
  expect(over.headers["ratelimit-limit"]).toBe("3");
  expect(over.headers["ratelimit-remaining"]).toBe("0");
  expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
  expect(over.headers["retry-after"]).toBe(over.headers["ratelimit-reset"]);
  // the test key of the same project has its own budget; the leads endpoints have theirs
  expect((await track(limited, p.testKey, 4)).status).toBe(201);
  const leads = () => request(limited.app).get("/v1/leads").set(bearer(p.liveKey));
  expect((await leads()).headers["ratelimit-limit"]).toBe("2");
  expect((await leads()).status).toBe(200);
  const leadsOver = await leads();
  expect(leadsOver.status).toBe(429);
  expect(leadsOver.headers["retry-after"]).toBeDefined();
  // a request without a valid key is a 401, not counted
  const anon = await request(limited.app).post("/v1/events").send({});
  expect(anon.status).toBe(401);
});

it("with Redis down the limit fails open: requests are served, without RateLimit headers", async () => {
  const p = await makeProject(down.deps);
  for (let i = 0; i < 5; i++) {
    const r = await track(down, p.liveKey, 100 + i);
    expect(r.status).toBe(201);
    expect(r.headers["ratelimit-limit"]).toBeUndefined();
  }
});
