// Shop webhooks (spec 4.9 /webhooks/shop/:topic, issue 27). Real: PostgreSQL, RabbitMQ (outbox relay and the three
// topic consumers), the shared send model for abandoned-cart emails. Payloads are the platform's own resources
// from ../shared/corpus/shop, read at test time.
import type { ProjectId } from "@emailsvc/contracts";
import request from "supertest";
import { campaignStats, rotateShopSecret, updateShop } from "@emailsvc/db";
import { type TestProject, waitFor } from "@emailsvc/testing";
import { signShopBody } from "../src/webhooks/verify-shop-hmac";
import { corpus, ENCRYPTION_KEY, type Harness, startHarness } from "./harness";

let h: Harness;
let p: TestProject<ProjectId>;
const run = Date.now().toString(36);
let seq = 0;
const uniq = (tag: string) => `${tag}-${run}-${++seq}`;
const SECRET = "shop-secret-0123456789";

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
  (await h.deps.db.pool.query(sql, params)).rows as T[];

interface Delivery {
  topic: string;
  body: unknown;
  domain: string;
  projectId: string;
  secret?: string | null;
  webhookId?: string | null;
  hmac?: string;
}

function deliver(d: Delivery) {
  const raw = typeof d.body === "string" ? d.body : JSON.stringify(d.body);
  const r = request(h.app).post(`/webhooks/shop/${d.topic}`).set("content-type", "application/json");
  r.set("x-shop-shop-domain", d.domain).set("x-project-id", d.projectId);
  const id = d.webhookId === undefined ? uniq("wh") : d.webhookId;
  if (id !== null) r.set("x-shop-webhook-id", id);
  const hmac = d.hmac ?? (d.secret === null ? undefined : signShopBody(raw, d.secret ?? SECRET));
  if (hmac) r.set("x-shop-hmac-sha256", hmac);
  return r.send(raw);
}

async function shop(settings: Parameters<Harness["connect"]>[2] = {}) {
  p = await h.makeProject();
  const domain = `${uniq("store")}.myshop.test`;
  const shopId = await h.connect(p.projectId, domain, { secret: SECRET, ...settings });
  return { domain, shopId, projectId: p.projectId };
}

const checkout = (over: Record<string, unknown> = {}) => ({
  ...corpus("checkouts-create"),
  token: uniq("ck"),
  cart_token: uniq("cart"),
  email: `${uniq("buyer")}@example.org`,
  created_at: new Date().toISOString(),
  ...over,
});
const order = (over: Record<string, unknown> = {}) => ({
  ...corpus("orders-create"),
  id: Math.floor(Math.random() * 1e12),
  checkout_token: null,
  cart_token: null,
  created_at: new Date().toISOString(),
  ...over,
});

describe("POST /webhooks/shop/:topic: the receiver", () => {
  it("stores a signed delivery of each topic (the platform's own payloads) and answers 200; consumers apply them", async () => {
    const s = await shop();
    const cart = { ...corpus("carts-update"), token: uniq("cart") };
    const co = checkout({ cart_token: cart.token });
    const ord = order({ email: co.email, cart_token: cart.token });
    for (const [topic, body] of [
      ["cart/update", cart],
      ["checkout/create", co],
      ["order/create", ord],
    ] as const) {
      const r = await deliver({ topic, body, ...s });
      expect({ status: r.status, body: r.body }).toEqual({
        status: 200,
        body: { success: true, message: `Webhook ${topic} received` },
      });
    }
    await waitFor(
      async () =>
        (await q("SELECT 1 FROM shop_webhook_events WHERE shop_id = $1 AND processed_at IS NULL", [s.shopId]))
          .length === 0,
      10_000,
      "the three deliveries processed",
    );
    const [c] = await q<{ total_minor: string; lead_id: string | null }>(
      "SELECT total_minor::text, lead_id FROM shop_carts WHERE shop_id = $1",
      [s.shopId],
    );
    expect(c!.total_minor).toBe("100");
    expect(c!.lead_id).not.toBeNull(); // the anonymous cart was attached when the checkout named the buyer
    const [o] = await q<{ total_minor: string; currency: string; test: boolean }>(
      "SELECT total_minor::text, currency, test FROM shop_orders WHERE shop_id = $1",
      [s.shopId],
    );
    expect(o).toEqual({ total_minor: "40994", currency: "USD", test: false });
    const events = await q<{ name: string }>(
      "SELECT e.name FROM lead_events e JOIN leads l ON l.id = e.lead_id WHERE l.project_id = $1 ORDER BY e.name",
      [s.projectId],
    );
    expect(events.map((e) => e.name)).toEqual(["checkout_started", "order_placed"]);
    const [lead] = await q<{ source: string; subscription: string }>(
      "SELECT source, subscription FROM leads WHERE project_id = $1",
      [s.projectId],
    );
    expect(lead).toEqual({ source: "shop", subscription: "unknown" });
  });

  it("HMAC: a wrong or missing signature is a 401; the previous secret works during the rotation's grace only", async () => {
    const s = await shop();
    const body = { ...corpus("carts-update"), token: uniq("cart") };
    expect((await deliver({ topic: "cart/update", body, ...s, secret: "wrong-secret-123" })).status).toBe(
      401,
    );
    const none = await deliver({ topic: "cart/update", body, ...s, secret: null });
    expect({ status: none.status, body: none.body }).toEqual({
      status: 401,
      body: { success: false, error: "Invalid HMAC signature" },
    });
    expect((await deliver({ topic: "cart/update", body, ...s, hmac: "not base64 at all" })).status).toBe(401);
    await rotateShopSecret(h.deps.db, s.projectId, s.shopId, "new-secret-abcdefgh", 60, ENCRYPTION_KEY);
    expect((await deliver({ topic: "cart/update", body, ...s })).status).toBe(200); // old, in grace
    expect((await deliver({ topic: "cart/update", body, ...s, secret: "new-secret-abcdefgh" })).status).toBe(
      200,
    );
    await rotateShopSecret(h.deps.db, s.projectId, s.shopId, "third-secret-abcdefgh", 0, ENCRYPTION_KEY);
    expect((await deliver({ topic: "cart/update", body, ...s, secret: "new-secret-abcdefgh" })).status).toBe(
      401,
    );
    expect(
      (await deliver({ topic: "cart/update", body, ...s, secret: "third-secret-abcdefgh" })).status,
    ).toBe(200);
    // a shop without a secret is not signature-checked (spec 7.9: "when a platform secret is configured")
    const open = await shop({ secret: null });
    expect((await deliver({ topic: "cart/update", body, ...open, secret: null })).status).toBe(200);
  });

  it("x-project-id must name an existing project: 400 naming the header, nothing stored", async () => {
    const s = await shop();
    const body = { ...corpus("carts-update"), token: uniq("cart") };
    const unknownDomain = `${uniq("nobody")}.myshop.test`;
    for (const [projectId, domain] of [
      ["not-a-uuid", s.domain],
      ["", s.domain],
      ["00000000-0000-4000-8000-000000000000", s.domain],
      ["00000000-0000-4000-8000-000000000000", unknownDomain],
    ] as const) {
      const r = await deliver({ topic: "cart/update", body, ...s, projectId, domain });
      expect({ projectId, status: r.status, body: r.body }).toEqual({
        projectId,
        status: 400,
        body: { success: false, error: "x-project-id: must be the UUID of an existing project" },
      });
    }
    expect(await q("SELECT 1 FROM shop_webhook_events WHERE shop_id = $1", [s.shopId])).toHaveLength(0);
    expect(await q("SELECT 1 FROM shop_connections WHERE shop_domain = $1", [unknownDomain])).toHaveLength(0);
  });

  it("a domain connected to another project, a bad signature, and (when required) an unsigned delivery: one 401 answer", async () => {
    const s = await shop(); // signed, connected to its own project
    const other = await h.makeProject();
    const open = await shop({ secret: null });
    const body = { ...corpus("carts-update"), token: uniq("cart") };
    const answers = [
      // the domain belongs to another project: signed or not, right secret or not
      await deliver({ topic: "cart/update", body, ...s, projectId: other.projectId }),
      await deliver({ topic: "cart/update", body, ...s, projectId: other.projectId, secret: null }),
      await deliver({ topic: "cart/update", body, ...open, projectId: other.projectId, secret: null }),
      // this project's domain, a bad signature
      await deliver({ topic: "cart/update", body, ...s, secret: "wrong-secret-123" }),
    ];
    await q("UPDATE projects SET require_signed_shop_webhooks = true WHERE id = $1", [other.projectId]);
    await q("UPDATE projects SET require_signed_shop_webhooks = true WHERE id = $1", [open.projectId]);
    // required signed: an unknown domain, and a connected one without a secret
    const unknownDomain = `${uniq("nobody")}.myshop.test`;
    answers.push(
      await deliver({
        topic: "cart/update",
        body,
        domain: unknownDomain,
        projectId: other.projectId,
        secret: null,
      }),
      await deliver({ topic: "cart/update", body, ...open, secret: null }),
    );
    expect(answers.map((r) => ({ status: r.status, body: r.body }))).toEqual(
      answers.map(() => ({ status: 401, body: { success: false, error: "Invalid HMAC signature" } })),
    );
    expect(await q("SELECT 1 FROM shop_connections WHERE shop_domain = $1", [unknownDomain])).toHaveLength(0);
    expect(
      await q("SELECT 1 FROM shop_webhook_events WHERE shop_id = ANY($1::uuid[])", [[s.shopId, open.shopId]]),
    ).toHaveLength(0);
  });

  it("a domain no project has is connected to the delivery's project, unsigned; then checked, stored and de-duplicated like any", async () => {
    p = await h.makeProject();
    const domain = `${uniq("new")}.myshop.test`;
    const at = { domain, projectId: p.projectId, secret: null };
    // an invalid payload or a bad header first: 400, and the domain is not connected by it
    const bad = await deliver({ topic: "order/create", body: { ...order(), currency: "XYZ" }, ...at });
    expect({ status: bad.status, error: bad.body.error }).toEqual({
      status: 400,
      error: "currency: is not an ISO 4217 currency code",
    });
    const badDomain = await deliver({ topic: "order/create", body: order(), ...at, domain: "not a domain" });
    expect({ status: badDomain.status, error: badDomain.body.error }).toEqual({
      status: 400,
      error: "x-shop-shop-domain: must be the store's domain name, e.g. example.myshop.com",
    });
    expect(await q("SELECT 1 FROM shop_connections WHERE shop_domain = $1", [domain])).toHaveLength(0);

    const co = checkout();
    const webhookId = uniq("first");
    // a signature is sent, but there is no secret to check it with: accepted unsigned
    const first = await deliver({
      topic: "checkout/create",
      body: co,
      ...at,
      webhookId,
      hmac: "c29tZXRoaW5n",
    });
    expect({ status: first.status, body: first.body }).toEqual({
      status: 200,
      body: { success: true, message: "Webhook checkout/create received" },
    });
    const [conn] = await q<{
      id: string;
      project_id: string;
      secret_enc: string | null;
      connected_by: string;
    }>("SELECT id, project_id, secret_enc, connected_by FROM shop_connections WHERE shop_domain = $1", [
      domain,
    ]);
    expect(conn).toEqual({
      id: expect.any(String),
      project_id: p.projectId,
      secret_enc: null,
      connected_by: "delivery",
    });
    const again = await deliver({ topic: "checkout/create", body: co, ...at, webhookId });
    expect({ status: again.status, error: again.body.error }).toEqual({
      status: 409,
      error: "Duplicate webhook: already received",
    });
    // 20 deliveries racing for a second new domain connect it once
    const racing = `${uniq("race")}.myshop.test`;
    const raced = await Promise.all(
      Array.from({ length: 20 }, () =>
        deliver({
          topic: "cart/update",
          body: { token: uniq("cart"), line_items: [] },
          ...at,
          domain: racing,
        }),
      ),
    );
    expect(raced.map((r) => r.status)).toEqual(raced.map(() => 200));
    expect(await q("SELECT 1 FROM shop_connections WHERE shop_domain = $1", [racing])).toHaveLength(1);
    const events = await q<{ signed: boolean }>("SELECT signed FROM shop_webhook_events WHERE shop_id = $1", [
      conn!.id,
    ]);
    expect(events).toEqual([{ signed: false }]);
    // the unsigned checkout is applied (lead, event) but starts no abandoned-cart timer
    await waitFor(
      async () =>
        (await q("SELECT 1 FROM shop_checkouts WHERE shop_id = $1 AND token = $2", [conn!.id, co.token]))
          .length === 1,
      10_000,
      "the unsigned checkout applied",
    );
    expect(await q("SELECT 1 FROM abandoned_cart_steps WHERE shop_id = $1", [conn!.id])).toHaveLength(0);
    // another project cannot take it over, and the count of unsigned shops' deliveries is exposed as a metric
    const other = await h.makeProject();
    const stolen = await deliver({
      topic: "cart/update",
      body: { token: "t", line_items: [] },
      domain,
      projectId: other.projectId,
      secret: null,
    });
    expect(stolen.status).toBe(401);
    const metrics = await h.deps.metrics.registry.metrics();
    expect(metrics).toMatch(/^shop_webhooks_unsigned_total\{[^}]*connected="true"[^}]*\} [1-9]/m);
  });

  it("every bad input is a 4xx naming what is wrong, never a 500", async () => {
    const s = await shop();
    const cases: [string, unknown, number, RegExp][] = [
      ["orders/delete", order(), 400, /^Unsupported topic/],
      ["", order(), 400, /^Unsupported topic/],
      ["order/create", "{", 400, /^Invalid JSON body$/],
      ["order/create", "[1]", 400, /JSON object/],
      ["order/create", { ...order(), currency: "XYZ" }, 400, /^currency: is not an ISO 4217 currency code$/],
      ["order/create", { ...order(), total_price: "-5.00" }, 400, /^total_price: /],
      ["order/create", { ...order(), id: undefined }, 400, /^id: /],
      [
        "checkout/create",
        { ...checkout(), line_items: [{ price: "1.00", quantity: -2 }] },
        400,
        /^line_items\[0\]\.quantity: /,
      ],
      [
        "checkout/create",
        { ...checkout(), line_items: [{ price: { a: 1 }, quantity: 1 }] },
        400,
        /^line_items\[0\]\.price: /,
      ],
      ["checkout/create", { ...checkout(), line_items: "many" }, 400, /^line_items: /],
      ["cart/update", { line_items: [] }, 400, /^token: /],
      ["cart/update", { token: "t", line_items: [], note: "a\u0000b" }, 400, /NUL/],
      ["cart/update", { token: "t", line_items: [], pad: "x".repeat(10 * 1024 * 1024) }, 413, /too large/],
    ];
    for (const [topic, body, status, error] of cases) {
      const r = await deliver({ topic, body, ...s });
      expect({ topic, status: r.status, body: r.body }).toEqual({
        topic,
        status,
        body: { success: false, error: expect.stringMatching(error) },
      });
    }
    const noId = await deliver({
      topic: "cart/update",
      body: { token: "t", line_items: [] },
      ...s,
      webhookId: null,
    });
    expect({ status: noId.status, error: noId.body.error }).toEqual({
      status: 400,
      error: "x-shop-webhook-id: is required (1 to 255 characters)",
    });
    expect(await q("SELECT 1 FROM shop_webhook_events WHERE shop_id = $1", [s.shopId])).toHaveLength(0);
  });

  it("duplicates: 20 concurrent deliveries of one webhook id store it once; 409, or 200 duplicate when the shop chose that", async () => {
    const s = await shop();
    const body = { ...corpus("carts-update"), token: uniq("cart") };
    const webhookId = uniq("same");
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => deliver({ topic: "cart/update", body, ...s, webhookId })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const conflicts = answers.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(19);
    expect(conflicts[0]!.body).toEqual({ success: false, error: "Duplicate webhook: already received" });
    expect(await q("SELECT 1 FROM shop_webhook_events WHERE shop_id = $1", [s.shopId])).toHaveLength(1);
    await updateShop(h.deps.db, s.projectId, s.shopId, { duplicate_answer: "ok" });
    const again = await deliver({ topic: "cart/update", body, ...s, webhookId });
    expect({ status: again.status, body: again.body }).toEqual({
      status: 200,
      body: { success: true, duplicate: true, message: "Duplicate webhook: already received" },
    });
  });

  it("a group commit queues one message per project and topic naming its deliveries; 60 at once are all applied", async () => {
    const a = await shop();
    const b = await shop();
    const { Exchanges, RoutingKeys, makeEnvelope } = await import("@emailsvc/contracts");
    const { recordShopWebhooks, timeOrderedUuid } = await import("@emailsvc/db");
    const row = (sh: typeof a, topic: "cart/update" | "order/create", webhookId = uniq("wh")) => {
      const id = timeOrderedUuid();
      const routingKey = topic === "cart/update" ? RoutingKeys.shopCartUpdate : RoutingKeys.shopOrderCreate;
      return {
        id,
        projectId: sh.projectId,
        shopId: sh.shopId,
        webhookId,
        topic,
        signed: true,
        payloadJson: JSON.stringify({ token: uniq("cart"), line_items: [] }),
        outbox: {
          exchange: Exchanges.shopWebhooks,
          routingKey,
          payload: makeEnvelope(routingKey, { webhookEventIds: [id] }, { projectId: sh.projectId }),
        },
      };
    };
    const rows = [
      row(a, "cart/update"),
      row(a, "cart/update", "dup"),
      row(a, "order/create"),
      row(b, "cart/update"),
    ];
    rows.push(row(a, "cart/update"), row(a, "cart/update", "dup")); // the same webhook id twice in one batch
    // in a transaction rolled back: no relay (this file's or another's) publishes the rows while they are read
    const client = await h.deps.db.pool.connect();
    try {
      await client.query("BEGIN");
      const outcomes = await recordShopWebhooks({ pool: client } as never, rows);
      expect(outcomes).toEqual(["stored", "stored", "stored", "stored", "stored", "duplicate"]);
      const { rows: queued } = await client.query<{ routing_key: string; payload: Record<string, unknown> }>(
        `SELECT routing_key, payload FROM outbox_messages WHERE payload->>'projectId' = ANY($1::text[])`,
        [[a.projectId, b.projectId]],
      );
      const summary = queued
        .map((m) => ({
          project: m.payload.projectId === a.projectId ? "a" : "b",
          routingKey: m.routing_key,
          ids: (m.payload.payload as { webhookEventIds: string[] }).webhookEventIds,
        }))
        .sort((x, y) => (x.project + x.routingKey).localeCompare(y.project + y.routingKey));
      expect(summary).toEqual(
        [
          {
            project: "a",
            routingKey: RoutingKeys.shopCartUpdate,
            ids: [rows[0]!.id, rows[1]!.id, rows[4]!.id],
          },
          { project: "a", routingKey: RoutingKeys.shopOrderCreate, ids: [rows[2]!.id] },
          { project: "b", routingKey: RoutingKeys.shopCartUpdate, ids: [rows[3]!.id] },
        ].sort((x, y) => (x.project + x.routingKey).localeCompare(y.project + y.routingKey)),
      );
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }

    // Through the receiver: 60 concurrent deliveries share commits, and every one is applied.
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        deliver({ topic: "cart/update", body: { ...corpus("carts-update"), token: uniq("cart") }, ...a }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(60).fill(200));
    await settle(a.shopId);
    expect(await q("SELECT 1 FROM shop_carts WHERE shop_id = $1", [a.shopId])).toHaveLength(60);
  });

  it("a message queued before group commits (one `webhookEventId`) is still applied", async () => {
    const s = await shop();
    const { Exchanges, RoutingKeys, makeEnvelope } = await import("@emailsvc/contracts");
    const { timeOrderedUuid } = await import("@emailsvc/db");
    const id = timeOrderedUuid();
    const cart = { ...corpus("carts-update"), token: uniq("cart") };
    await q(
      `INSERT INTO shop_webhook_events (id, project_id, shop_id, webhook_id, topic, payload)
       VALUES ($1, $2, $3, $4, 'cart/update', $5::jsonb)`,
      [id, s.projectId, s.shopId, uniq("wh"), JSON.stringify(cart)],
    );
    await h.deps.broker.publish(
      Exchanges.shopWebhooks,
      RoutingKeys.shopCartUpdate,
      makeEnvelope(RoutingKeys.shopCartUpdate, { webhookEventId: id }, { projectId: s.projectId }),
    );
    await settle(s.shopId);
    expect(await q("SELECT token FROM shop_carts WHERE shop_id = $1", [s.shopId])).toEqual([
      { token: cart.token },
    ]);
  });
});

async function settle(shopId: string) {
  await waitFor(
    async () =>
      (await q("SELECT 1 FROM shop_webhook_events WHERE shop_id = $1 AND processed_at IS NULL", [shopId]))
        .length === 0,
    10_000,
    "deliveries processed",
  );
}

async function template(projectId: string): Promise<string> {
  const [t] = await q<{ id: string }>(
    `INSERT INTO templates (id, project_id, internal_id, name, subject, html)
     VALUES (gen_random_uuid(), $1, 1, 'abandoned', 'You left {{#each items}}{title} {{/each}}behind',
             '<p>Hi {first_name || "there"}</p>{{#each items}}<li>{title} x{quantity}: {line_price} {currency}</li>{{/each}}<a href="{recovery_url}">Finish</a> Total {total_price}')
     RETURNING id`,
    [projectId],
  );
  return t!.id;
}

describe("abandoned-cart automation", () => {
  it("a checkout with no order gets the shop's template at each step; an order between steps stops the rest", async () => {
    const s = await shop({ abandoned_steps_minutes: [1, 4] });
    const tpl = await template(s.projectId);
    await updateShop(h.deps.db, s.projectId, s.shopId, {
      abandoned_template_id: tpl,
      abandoned_from_email: p.sender,
      abandoned_from_name: "The Shop",
    });
    const co = checkout();
    expect((await deliver({ topic: "checkout/create", body: co, ...s })).status).toBe(200);
    await settle(s.shopId);
    const loop = h.loop();
    expect(await loop.tick()).toBe(0); // not due yet (1 "minute" = 1 s here)
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await loop.tick()).toBe(1);
    const [sent] = await q<{
      subject: string;
      html: string;
      email_type: string;
      source: string;
      automation_run_id: string;
    }>(
      `SELECT m.subject, m.html, m.email_type, m.source, m.automation_run_id FROM email_messages m
        JOIN abandoned_cart_steps s ON s.email_message_id = m.id WHERE s.shop_id = $1`,
      [s.shopId],
    );
    expect(sent!.subject).toBe("You left IPod Nano - 8GB IPod Nano - 8GB behind");
    expect(sent!.html).toContain("<li>IPod Nano - 8GB x1: 199.00 USD</li>");
    expect(sent!.html).toContain(
      `href="${(co as Record<string, unknown>).abandoned_checkout_url as string}"`,
    );
    expect(sent!.html).toContain("Total 409.94");
    expect({ type: sent!.email_type, source: sent!.source }).toEqual({
      type: "automation",
      source: "automation",
    });
    const [ck] = await q<{ id: string }>("SELECT id FROM shop_checkouts WHERE shop_id = $1", [s.shopId]);
    expect(sent!.automation_run_id).toBe(ck!.id);
    // the order arrives before step 2 is due: step 2 is stopped, never sent
    expect(
      (
        await deliver({
          topic: "order/create",
          body: order({ email: co.email, checkout_token: co.token }),
          ...s,
        })
      ).status,
    ).toBe(200);
    await settle(s.shopId);
    await new Promise((r) => setTimeout(r, 3_000));
    await loop.tick();
    const steps = await q<{ step: number; status: string; reason: string | null }>(
      "SELECT step, status, reason FROM abandoned_cart_steps WHERE shop_id = $1 ORDER BY step",
      [s.shopId],
    );
    expect(steps).toEqual([
      { step: 1, status: "sent", reason: null },
      { step: 2, status: "stopped", reason: "order placed" },
    ]);
  });

  it("an unsigned shop's checkouts start no abandoned-cart emails until the operator allows them for that shop", async () => {
    const s = await shop({ secret: null, abandoned_steps_minutes: [1] });
    const tpl = await template(s.projectId);
    await updateShop(h.deps.db, s.projectId, s.shopId, {
      abandoned_template_id: tpl,
      abandoned_from_email: p.sender,
    });
    const off = checkout();
    expect((await deliver({ topic: "checkout/create", body: off, ...s, secret: null })).status).toBe(200);
    await settle(s.shopId);
    expect(await q("SELECT 1 FROM abandoned_cart_steps WHERE shop_id = $1", [s.shopId])).toHaveLength(0);

    await updateShop(h.deps.db, s.projectId, s.shopId, { allow_unsigned_abandoned_cart: true });
    const on = checkout();
    expect((await deliver({ topic: "checkout/create", body: on, ...s, secret: null })).status).toBe(200);
    await settle(s.shopId);
    // turned off again before the step is due: the step is skipped, saying why
    await updateShop(h.deps.db, s.projectId, s.shopId, { allow_unsigned_abandoned_cart: false });
    await new Promise((r) => setTimeout(r, 1_500));
    await h.loop().tick();
    const steps = await q<{ status: string; reason: string | null }>(
      "SELECT status, reason FROM abandoned_cart_steps WHERE shop_id = $1",
      [s.shopId],
    );
    expect(steps).toEqual([
      { status: "skipped", reason: expect.stringMatching(/^the shop has no webhook secret/) },
    ]);
  });

  it("an order that arrives before its checkout: no timer starts; unsubscribed leads are skipped", async () => {
    const s = await shop({ abandoned_steps_minutes: [1] });
    const co = checkout();
    expect(
      (
        await deliver({
          topic: "order/create",
          body: order({ email: co.email, cart_token: co.cart_token }),
          ...s,
        })
      ).status,
    ).toBe(200);
    await settle(s.shopId);
    expect((await deliver({ topic: "checkout/create", body: co, ...s })).status).toBe(200);
    await settle(s.shopId);
    expect(await q("SELECT 1 FROM abandoned_cart_steps WHERE shop_id = $1", [s.shopId])).toHaveLength(0);

    const tpl = await template(s.projectId);
    await updateShop(h.deps.db, s.projectId, s.shopId, {
      abandoned_template_id: tpl,
      abandoned_from_email: p.sender,
    });
    const gone = checkout({ created_at: new Date(Date.now() - 5_000).toISOString() }); // due already
    expect((await deliver({ topic: "checkout/create", body: gone, ...s })).status).toBe(200);
    await settle(s.shopId);
    await q(
      "UPDATE leads SET subscription = 'unsubscribed' WHERE project_id = $1 AND email_normalized = $2",
      [s.projectId, (gone.email as string).toLowerCase()],
    );
    await h.loop().tick();
    expect(await q("SELECT status, reason FROM abandoned_cart_steps WHERE shop_id = $1", [s.shopId])).toEqual(
      [{ status: "skipped", reason: "lead unsubscribed" }],
    );
  });

  it("three replicas ticking at once send each due step exactly once", async () => {
    const s = await shop({ abandoned_steps_minutes: [1] });
    const tpl = await template(s.projectId);
    await updateShop(h.deps.db, s.projectId, s.shopId, {
      abandoned_template_id: tpl,
      abandoned_from_email: p.sender,
    });
    const past = new Date(Date.now() - 60_000).toISOString();
    const bodies = Array.from({ length: 30 }, () => checkout({ created_at: past }));
    for (const body of bodies)
      expect((await deliver({ topic: "checkout/create", body, ...s })).status).toBe(200);
    await settle(s.shopId);
    const loops = [h.loop(), h.loop(), h.loop()];
    await Promise.all(loops.map((l) => l.tick()));
    const sent = await q<{ n: number; messages: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT m.id)::int AS messages FROM abandoned_cart_steps s
         JOIN email_messages m ON m.id = s.email_message_id WHERE s.shop_id = $1 AND s.status = 'sent'`,
      [s.shopId],
    );
    expect(sent[0]).toEqual({ n: 30, messages: 30 });
    const activities = await q<{ n: number }>(
      "SELECT count(*)::int AS n FROM activities a JOIN email_messages m ON m.id = a.email_message_id WHERE m.project_id = $1 AND m.source = 'automation'",
      [s.projectId],
    );
    expect(activities[0]!.n).toBe(30);
  });
});

describe("revenue attribution", () => {
  /** A campaign send to `email` (as the dispatcher writes it) with its first click and open. */
  async function campaignSend(
    projectId: string,
    email: string,
    clickedAgoH: number | null,
    openedAgoH: number | null,
  ) {
    const [m] = await q<{ id: string }>(
      `INSERT INTO email_messages (id, project_id, is_test, source, email_type, from_email, subject, html, campaign_id)
       VALUES (gen_random_uuid(), $1, false, 'campaign', 'marketing', 'a@b.co', 's', 'h', gen_random_uuid()) RETURNING id`,
      [projectId],
    );
    const [a] = await q<{ id: string; campaign_id: string }>(
      `INSERT INTO activities (id, project_id, email_message_id, campaign_id, email_type, recipient, status, created_at,
                               clicked_first_at, opened_first_at)
       SELECT gen_random_uuid(), $1, m.id, m.campaign_id, 'marketing', $2, 'delivered', now() - interval '10 days',
              now() - $3::int * interval '1 hour', now() - $4::int * interval '1 hour'
         FROM email_messages m WHERE m.id = $5 RETURNING id, campaign_id`,
      [projectId, email, clickedAgoH, openedAgoH, m!.id],
    );
    return a!;
  }

  it("last touch: a click inside 5 days wins, else an open inside 1 day; test orders count no revenue", async () => {
    const s = await shop();
    const buyer = `${uniq("buyer")}@example.org`;
    const old = await campaignSend(s.projectId, buyer, 200, null); // click outside 5 days
    const clicked = await campaignSend(s.projectId, buyer, 48, 49);
    await campaignSend(s.projectId, buyer, null, 2); // a later open: a click still wins
    const o1 = order({ email: buyer });
    expect((await deliver({ topic: "order/create", body: o1, ...s })).status).toBe(200);

    const onlyOpen = `${uniq("buyer")}@example.org`;
    const opened = await campaignSend(s.projectId, onlyOpen, null, 3);
    const staleOpen = `${uniq("buyer")}@example.org`;
    await campaignSend(s.projectId, staleOpen, null, 30);
    const testBuyer = `${uniq("buyer")}@example.org`;
    const testTouch = await campaignSend(s.projectId, testBuyer, 1, null);
    for (const body of [
      order({ email: onlyOpen }),
      order({ email: staleOpen }),
      order({ email: testBuyer, test: true }),
    ])
      expect((await deliver({ topic: "order/create", body, ...s })).status).toBe(200);
    await settle(s.shopId);

    const rows = await q<{
      email: string;
      touch: string | null;
      activity: string | null;
      campaign: string | null;
      revenue: string;
      candidates: unknown[];
    }>(
      `SELECT email, attributed_touch AS touch, attributed_activity_id AS activity, attributed_campaign_id AS campaign,
              attributed_revenue_minor::text AS revenue, attribution_candidates AS candidates
         FROM shop_orders WHERE shop_id = $1`,
      [s.shopId],
    );
    const by = new Map(rows.map((r) => [r.email, r]));
    expect(by.get(buyer)).toMatchObject({
      touch: "click",
      activity: clicked.id,
      campaign: clicked.campaign_id,
      revenue: "40994",
    });
    expect(by.get(buyer)!.candidates).toHaveLength(2); // the click of `clicked` and the later open (its own open, 49 h ago, is outside 24 h)
    expect(by.get(buyer)!.candidates).not.toContainEqual(expect.objectContaining({ activity_id: old.id }));
    expect(by.get(onlyOpen)).toMatchObject({ touch: "open", activity: opened.id, revenue: "40994" });
    expect(by.get(staleOpen)).toMatchObject({ touch: null, revenue: "0" });
    expect(by.get(testBuyer)).toMatchObject({ touch: "click", activity: testTouch.id, revenue: "0" });
    // the campaign's stats gain the attributed order and its revenue; the test order's campaign gains none
    expect(await campaignStats(h.deps.db.pool, s.projectId, clicked.campaign_id)).toMatchObject({
      attributed_orders: 1,
      attributed_revenue_minor: 40994,
    });
    expect(await campaignStats(h.deps.db.pool, s.projectId, testTouch.campaign_id)).toMatchObject({
      attributed_orders: 0,
      attributed_revenue_minor: 0,
    });
    // an unsigned order (a shop without a secret) is attributed, and counted apart in the stats
    const open = await shop({ secret: null });
    const unsignedBuyer = `${uniq("buyer")}@example.org`;
    const touch = await campaignSend(open.projectId, unsignedBuyer, 1, null);
    expect(
      (await deliver({ topic: "order/create", body: order({ email: unsignedBuyer }), ...open, secret: null }))
        .status,
    ).toBe(200);
    await settle(open.shopId);
    const [unsignedOrder] = await q<{ signed: boolean; touch: string | null }>(
      "SELECT signed, attributed_touch AS touch FROM shop_orders WHERE shop_id = $1",
      [open.shopId],
    );
    expect(unsignedOrder).toEqual({ signed: false, touch: "click" });
    expect(await campaignStats(h.deps.db.pool, open.projectId, touch.campaign_id)).toMatchObject({
      attributed_orders: 1,
      attributed_revenue_minor: 40994,
      unsigned_attributed_orders: 1,
      unsigned_attributed_revenue_minor: 40994,
    });
    expect(await campaignStats(h.deps.db.pool, s.projectId, clicked.campaign_id)).toMatchObject({
      unsigned_attributed_orders: 0,
      unsigned_attributed_revenue_minor: 0,
    });
    // open_window_hours 0 turns opens off
    await updateShop(h.deps.db, s.projectId, s.shopId, { open_window_hours: 0 });
    const later = `${uniq("buyer")}@example.org`;
    await campaignSend(s.projectId, later, null, 1);
    expect((await deliver({ topic: "order/create", body: order({ email: later }), ...s })).status).toBe(200);
    await settle(s.shopId);
    const [off] = await q<{ touch: string | null }>(
      "SELECT attributed_touch AS touch FROM shop_orders WHERE shop_id = $1 AND email = $2",
      [s.shopId, later],
    );
    expect(off!.touch).toBeNull();
  });
});
