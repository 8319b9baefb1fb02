// Issue 49 item 5: the send routes' per-key request limit, the per-project daily cap (test sends included) and the
// fair share of the provider rate (a project past it sends in the bulk lane). Real: Redis, PostgreSQL, RabbitMQ
// (the outbox relay publishes; a test queue sees both lanes' send requests).
import request from "supertest";
import { RoutingKeys } from "@emailsvc/contracts";
import {
  bearer,
  type CommandObserver,
  makeProject,
  observeSendRequests,
  startHarness,
  testEnv,
  type Harness,
} from "./helpers";

let h: Harness;
let replica: Harness;
let observer: CommandObserver;
const run = Date.now().toString(36);

beforeAll(async () => {
  const env = {
    SEND_RATE_LIMIT: "3",
    SEND_DAILY_CAP: "4",
    RATE_LIMIT_WINDOW_MS: "60000",
    SEND_RATE_PER_SECOND: "10",
    SEND_FAIR_SHARE: "0.5",
    SEND_FAIR_SHARE_WINDOW_MS: "60000",
  };
  h = await startHarness(testEnv(env));
  // a second replica: every limit lives in Redis, so both count against one budget
  replica = await startHarness(testEnv(env));
  observer = await observeSendRequests();
});
afterAll(async () => {
  await observer?.broker.close();
  await replica?.close();
  await h?.close();
});

const send = (app: Harness, key: string, sender: string, to: string | string[], extra = {}) =>
  request(app.app)
    .post("/v1/send-email")
    .set(bearer(key))
    .send({ recipient_email: to, sender_email: sender, subject: "Hi", html_body: "<p>hi</p>", ...extra });

it("refuses a key past SEND_RATE_LIMIT requests a minute on the send routes: 429, Retry-After, RateLimit-*", async () => {
  const p = await makeProject(h.deps);
  await h.deps.db.pool.query("UPDATE projects SET daily_send_cap = 0 WHERE id = $1", [p.projectId]);
  const first = await send(h, p.liveKey, p.sender, `a-${run}@example.org`);
  expect(first.status).toBe(200);
  expect(first.headers["ratelimit-limit"]).toBe("3");
  expect(first.headers["ratelimit-remaining"]).toBe("2");
  expect((await send(replica, p.liveKey, p.sender, `b-${run}@example.org`)).status).toBe(200);
  // a bad body counts too: the limit runs before the body is read
  expect((await send(h, p.liveKey, p.sender, "not an address")).status).toBe(400);
  const over = await request(replica.app)
    .post("/v1/send-batch")
    .set(bearer(p.liveKey))
    .send({ sender: p.sender, subject: "s", html: "h", recipients: [{ email: `c-${run}@example.org` }] });
  expect(over.status).toBe(429);
  expect(over.body).toEqual({
    success: false,
    error: "Rate limit exceeded: at most 3 requests per minute per API key",
  });
  expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
  expect(over.headers["ratelimit-remaining"]).toBe("0");
  // the project's test key has its own budget
  expect((await send(h, p.testKey, p.sender, `d-${run}@example.org`)).status).toBe(200);
});

it("a project's send_rate_limit overrides the default", async () => {
  const p = await makeProject(h.deps);
  await h.deps.db.pool.query("UPDATE projects SET send_rate_limit = 5, daily_send_cap = 0 WHERE id = $1", [
    p.projectId,
  ]);
  const res = await send(h, p.liveKey, p.sender, `e-${run}@example.org`);
  expect(res.status).toBe(200);
  expect(res.headers["ratelimit-limit"]).toBe("5");
});

it("caps a project's emails a UTC day, test sends included, giving back what a refused request charged", async () => {
  const p = await makeProject(h.deps);
  await h.deps.db.pool.query("UPDATE projects SET send_rate_limit = 100 WHERE id = $1", [p.projectId]);
  expect(
    (await send(h, p.liveKey, p.sender, [`f1-${run}@example.org`, `f2-${run}@example.org`])).status,
  ).toBe(200);
  // an unverified sender is refused (403): its charge is given back
  expect((await send(h, p.testKey, "nobody@unverified.example", `g-${run}@example.org`)).status).toBe(403);
  expect((await send(replica, p.testKey, p.sender, `h-${run}@example.org`)).status).toBe(200);
  expect((await send(h, p.testKey, p.sender, `i-${run}@example.org`)).status).toBe(200);
  const over = await send(replica, p.liveKey, p.sender, `j-${run}@example.org`);
  expect(over.status).toBe(429);
  expect(over.body).toEqual({
    success: false,
    error:
      "Daily send limit reached: this project may send 4 emails a day (test sends included); it resets at 00:00 UTC",
  });
  const retryAfter = Number(over.headers["retry-after"]);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
  // a batch is counted by its recipients
  const batch = await request(h.app)
    .post("/v1/send-batch")
    .set(bearer(p.testKey))
    .send({ sender: p.sender, subject: "s", html: "h", recipients: [{ email: `k-${run}@example.org` }] });
  expect(batch.status).toBe(429);
  // another project's day is its own
  const other = await makeProject(h.deps);
  expect((await send(h, other.liveKey, other.sender, `l-${run}@example.org`)).status).toBe(200);
});

it("sends a project's transactional mail past its fair share of the provider rate in the bulk lane", async () => {
  // SEND_RATE_PER_SECOND 10 × share 0.5 × a 60 s window: 300 transactional recipients, then the bulk lane
  const flood = await makeProject(h.deps);
  const quiet = await makeProject(h.deps);
  await h.deps.db.pool.query(
    "UPDATE projects SET send_rate_limit = 100, daily_send_cap = 0 WHERE id = ANY($1::uuid[])",
    [[flood.projectId, quiet.projectId]],
  );
  const batch = (n: number, emailType: string) =>
    request(h.app)
      .post("/v1/send-batch")
      .set(bearer(flood.liveKey))
      .send({
        sender: flood.sender,
        subject: "s",
        html: "h",
        email_type: emailType,
        recipients: Array.from({ length: n }, (_, i) => ({
          email: `flood-${run}-${emailType}-${i}@example.org`,
        })),
      });
  const within = await batch(250, "transactional");
  expect(within.status).toBe(200);
  const past = await batch(100, "transactional");
  expect(past.status).toBe(200);
  const lanes = async (activityId: string) =>
    (await observer.waitFor((e) => e.payload.activityIds.includes(activityId), 10_000)).type;
  expect(await lanes(within.body.activities[0].activity_id)).toBe(RoutingKeys.emailSendRequested);
  expect(await lanes(past.body.activities[0].activity_id)).toBe(RoutingKeys.emailBulkSendRequested);
  // a single send of the flooding project goes bulk too; the quiet project's stays transactional
  const single = await send(replica, flood.liveKey, flood.sender, `single-${run}@example.org`);
  expect(single.status).toBe(200);
  const quietSend = await send(replica, quiet.liveKey, quiet.sender, `quiet-${run}@example.org`);
  expect(quietSend.status).toBe(200);
  const activityOf = async (emailId: string) =>
    (
      await h.deps.db.pool.query<{ id: string }>("SELECT id FROM activities WHERE email_message_id = $1", [
        emailId,
      ])
    ).rows[0]!.id;
  expect(await lanes(await activityOf(single.body.email_id))).toBe(RoutingKeys.emailBulkSendRequested);
  expect(await lanes(await activityOf(quietSend.body.email_id))).toBe(RoutingKeys.emailSendRequested);
  // a marketing batch is bulk mail whatever the share
  const marketing = await request(h.app)
    .post("/v1/send-batch")
    .set(bearer(quiet.liveKey))
    .send({ sender: quiet.sender, subject: "s", html: "h", recipients: [{ email: `m-${run}@example.org` }] });
  expect(await lanes(marketing.body.activities[0].activity_id)).toBe(RoutingKeys.emailBulkSendRequested);
});
