// The abandoned-cart timers and the topic consumers survive a SIGKILL: the real main.ts is killed while it
// consumes checkouts (beside this test's in-process consumers) and sends due steps; a second one finishes, and
// every checkout has exactly one timer and every step is sent exactly once (none lost, none twice).
import { updateShop } from "@emailsvc/db";
import { waitFor } from "@emailsvc/testing";
import { signShopBody } from "../src/webhooks/verify-shop-hmac";
import { corpus, type Harness, spawnShopIngest, startHarness } from "./harness";
import request from "supertest";
import { listExpressRoutes } from "@emailsvc/http";
import { publicRoutesOf } from "@emailsvc/contracts";
import { createApp } from "../src/app";
import { SHOP_WEBHOOK_ROUTES } from "../src/webhooks/shop-webhook.fast-path";

let h: Harness;
const run = Date.now().toString(36);

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const count = async (sql: string, params: unknown[]) =>
  ((await h.deps.db.pool.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0) as number;

// signed: an unsigned shop's checkouts start no abandoned-cart emails (issue 43)
const SECRET = "kill-test-secret-0123";

it("a shop-ingest SIGKILLed mid-send leaves its claims to the next one: every step sent exactly once", async () => {
  const p = await h.makeProject();
  const domain = `kill-${run}.myshop.test`;
  const shopId = await h.connect(p.projectId, domain, { secret: SECRET, abandoned_steps_minutes: [1] });
  const [t] = (
    await h.deps.db.pool.query<{ id: string }>(
      `INSERT INTO templates (id, project_id, internal_id, name, subject, html)
       VALUES (gen_random_uuid(), $1, 1, 'a', 'Your cart', '<p>{{#each items}}{title}{{/each}}</p>') RETURNING id`,
      [p.projectId],
    )
  ).rows;
  await updateShop(h.deps.db, p.projectId, shopId, {
    abandoned_template_id: t!.id,
    abandoned_from_email: p.sender,
  });
  // Small claims, so the first process is killed between claims and inside one; a short claim so the second
  // takes over the killed one's claims quickly.
  const env = { SHOP_TIMER_INTERVAL_MS: "100", SHOP_TIMER_BATCH: "5", SHOP_STEP_CLAIM_SECONDS: "2" };
  const first = await spawnShopIngest(env);
  const sentSteps = () =>
    count("SELECT count(*)::int AS n FROM abandoned_cart_steps WHERE shop_id = $1 AND status = 'sent'", [
      shopId,
    ]);
  const N = 300;
  let killedAt = -1;
  const past = new Date(Date.now() - 60_000).toISOString();
  for (let i = 0; i < N; i++) {
    if (i === N / 2) {
      // halfway through the deliveries, once it has sent some steps: the child is consuming and sending
      await waitFor(
        async () => (await sentSteps()) >= 10,
        60_000,
        "the first process to send some steps",
        20,
      );
      first.proc.kill("SIGKILL");
      await first.exited;
      killedAt = await sentSteps();
    }
    const body = JSON.stringify({
      ...corpus("checkouts-create"),
      token: `ck-${run}-${i}`,
      cart_token: `cart-${run}-${i}`,
      email: `kill-${run}-${i}@example.org`,
      created_at: past,
    });
    const r = await request(h.app)
      .post("/webhooks/shop/checkout/create")
      .set("content-type", "application/json")
      .set("x-shop-shop-domain", domain)
      .set("x-project-id", p.projectId)
      .set("x-shop-webhook-id", `kill-${run}-${i}`)
      .set("x-shop-hmac-sha256", signShopBody(body, SECRET))
      .send(body);
    expect(r.status).toBe(200);
  }
  expect(killedAt).toBeGreaterThanOrEqual(10);
  expect(killedAt).toBeLessThan(N);
  const second = await spawnShopIngest(env);
  try {
    await waitFor(
      async () =>
        (await count("SELECT count(*)::int AS n FROM abandoned_cart_steps WHERE shop_id = $1", [shopId])) ===
        N,
      60_000,
      "every checkout's timer",
    );
    await waitFor(async () => (await sentSteps()) === N, 120_000, "every step sent", 200);
    // the processing thread's counter is served by the main thread's /metrics
    const metrics = await (await fetch(`http://127.0.0.1:${second.port}/metrics`)).text();
    expect(metrics).toMatch(/^abandoned_cart_steps_total\{[^}]*outcome="sent"[^}]*\} [1-9]/m);
  } finally {
    second.proc.kill("SIGTERM");
  }
  // a SIGTERM stops the processing thread (its batches and claims finished) and then the process, cleanly
  expect(await second.exited).toBe(0);
  const messages = await count(
    `SELECT count(*)::int AS n FROM email_messages m WHERE m.project_id = $1 AND m.source = 'automation'`,
    [p.projectId],
  );
  const activities = await count(
    `SELECT count(*)::int AS n FROM activities a WHERE a.project_id = $1 AND a.email_type = 'automation'`,
    [p.projectId],
  );
  expect({ messages, activities }).toEqual({ messages: N, activities: N });
  // two processes' start-up and 300 sends: 9 s on a quiet machine, 29 s while other suites load both cores
}, 180_000);

it("serves exactly the routes the OpenAPI document lists under shop-ingest, fast path included", async () => {
  const app = createApp(h.deps);
  expect([...listExpressRoutes(app), ...SHOP_WEBHOOK_ROUTES].sort()).toEqual(publicRoutesOf("shop-ingest"));
  const r = await request(app).post("/webhooks/shop/order/create").send("{}");
  expect(r.status).not.toBe(404);
});
