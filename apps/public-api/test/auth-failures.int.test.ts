// Issue 49 item 5: failed authentications are throttled per client address, shared by replicas through Redis;
// a good key is never slowed by it, and the address is the one the gateway saw (the last X-Forwarded-For entry).
import request from "supertest";
import { bearer, makeProject, startHarness, testEnv, type Harness } from "./helpers";

let h: Harness;
let replica: Harness;

beforeAll(async () => {
  const env = { AUTH_FAILURE_LIMIT: "3", RATE_LIMIT_WINDOW_MS: "60000" };
  h = await startHarness(testEnv(env));
  replica = await startHarness(testEnv(env));
});
afterAll(async () => {
  await replica?.close();
  await h?.close();
});

const run = Date.now().toString(36);
// the gateway appends the address it saw; a client's own X-Forwarded-For entries come first
const from = (addr: string) => ({ "x-forwarded-for": `203.0.113.7, ${addr}` });
const badKey = (app: Harness, addr: string) =>
  request(app.app)
    .get("/v1/leads")
    .set({ ...bearer(`sk_live_unknown${run}`), ...from(addr) });

it("refuses an address past its failed authentications with 429 and Retry-After, across replicas", async () => {
  const addr = `198.51.100.${Math.floor(Math.random() * 200) + 1}`;
  for (let i = 0; i < 3; i++) expect((await badKey(i % 2 ? replica : h, addr)).status).toBe(401);
  // the fourth failure passes the limit: the replica that saw it refuses the address from then on
  expect((await badKey(replica, addr)).status).toBe(401);
  await new Promise((r) => setTimeout(r, 100));
  const refused = await badKey(replica, addr);
  expect(refused.status).toBe(429);
  expect(refused.body).toEqual({
    success: false,
    error: "Too many requests with an invalid API key from this address; try again later",
  });
  expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  // the other replica learns it from its next failure: the count is shared
  expect((await badKey(h, addr)).status).toBe(401);
  await new Promise((r) => setTimeout(r, 100));
  expect((await badKey(h, addr)).status).toBe(429);
  // even a good key from that address waits; another address (and a client's forged first entry) is not blocked
  const p = await makeProject(h.deps);
  expect(
    (
      await request(h.app)
        .get("/v1/leads")
        .set({ ...bearer(p.liveKey), ...from(addr) })
    ).status,
  ).toBe(429);
  const other = await request(h.app)
    .get("/v1/leads")
    .set({ ...bearer(p.liveKey), "x-forwarded-for": `${addr}, 192.0.2.1` });
  expect(other.status).toBe(200);
});
