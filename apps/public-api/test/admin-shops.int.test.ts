// Admin API: shop connections (spec 4.9's e-commerce receiver). Real PostgreSQL.
import request from "supertest";
import { decryptSecret } from "@emailsvc/db";
import { ENCRYPTION_KEY, makeProject, startHarness, testEnv, type Harness } from "./helpers";

let h: Harness;
const TOKEN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const run = Date.now().toString(36);

beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(async () => {
  await h?.close();
});

const admin = () => request(h.internal);

it("connect, show, list, update, rotate and disconnect a shop; the secret is stored encrypted and never shown", async () => {
  const p = await makeProject(h.deps);
  const domain = `Store-${run}.MyShop.test`;
  const created = await admin()
    .post(`/admin/projects/${p.projectId}/shops`)
    .set(TOKEN)
    .send({ shop_domain: domain, secret: "first-secret-123", abandoned_steps_minutes: [60, 1440, 4320] });
  expect(created.status).toBe(201);
  const shop = created.body.shop;
  expect(shop).toMatchObject({
    shop_domain: domain.toLowerCase(),
    has_secret: true,
    previous_secret_valid_until: null,
    duplicate_answer: "conflict",
    click_window_hours: 120,
    open_window_hours: 24,
    abandoned_steps_minutes: [60, 1440, 4320],
  });
  expect(JSON.stringify(created.body)).not.toContain("first-secret-123");
  const [row] = (
    await h.deps.db.pool.query<{ secret_enc: string }>(
      "SELECT secret_enc FROM shop_connections WHERE id = $1",
      [shop.id],
    )
  ).rows;
  expect(row!.secret_enc).not.toContain("first-secret");
  expect(decryptSecret(row!.secret_enc, ENCRYPTION_KEY)).toBe("first-secret-123");

  const again = await admin()
    .post(`/admin/projects/${p.projectId}/shops`)
    .set(TOKEN)
    .send({ shop_domain: domain });
  expect(again.status).toBe(409);
  const list = await admin().get(`/admin/projects/${p.projectId}/shops`).set(TOKEN);
  expect(list.body.shops.map((s: { id: string }) => s.id)).toEqual([shop.id]);

  const patched = await admin()
    .patch(`/admin/projects/${p.projectId}/shops/${shop.id}`)
    .set(TOKEN)
    .send({ duplicate_answer: "ok", open_window_hours: 0 });
  expect(patched.body.shop).toMatchObject({
    duplicate_answer: "ok",
    open_window_hours: 0,
    click_window_hours: 120,
  });

  const rotated = await admin()
    .post(`/admin/projects/${p.projectId}/shops/${shop.id}/rotate-secret`)
    .set(TOKEN)
    .send({ secret: "second-secret-456" });
  expect(rotated.status).toBe(200);
  const until = Date.parse(rotated.body.shop.previous_secret_valid_until);
  expect(until - Date.now()).toBeGreaterThan(59 * 60_000);
  expect(until - Date.now()).toBeLessThanOrEqual(60 * 60_000);

  // another project never sees or changes it
  const other = await makeProject(h.deps);
  expect((await admin().get(`/admin/projects/${other.projectId}/shops/${shop.id}`).set(TOKEN)).status).toBe(
    404,
  );
  expect(
    (await admin().delete(`/admin/projects/${other.projectId}/shops/${shop.id}`).set(TOKEN)).status,
  ).toBe(404);

  expect((await admin().delete(`/admin/projects/${p.projectId}/shops/${shop.id}`).set(TOKEN)).status).toBe(
    200,
  );
  expect((await admin().get(`/admin/projects/${p.projectId}/shops/${shop.id}`).set(TOKEN)).status).toBe(404);
});

it("bad input is a 400 naming the field; unknown projects, shops and templates are 404 or 400", async () => {
  const p = await makeProject(h.deps);
  const cases: [unknown, RegExp][] = [
    [{}, /^shop_domain: /],
    [{ shop_domain: "not a domain" }, /^shop_domain: must be a domain name/],
    [{ shop_domain: `x-${run}.test`, secret: "short" }, /^secret: /],
    [{ shop_domain: `x-${run}.test`, abandoned_steps_minutes: [1, 2, 3, 4] }, /^abandoned_steps_minutes: /],
    [{ shop_domain: `x-${run}.test`, duplicate_answer: "maybe" }, /^duplicate_answer: /],
    [{ shop_domain: `x-${run}.test`, extra: 1 }, /extra/],
  ];
  for (const [body, error] of cases) {
    const r = await admin()
      .post(`/admin/projects/${p.projectId}/shops`)
      .set(TOKEN)
      .send(body as object);
    expect({ status: r.status, error: r.body.error }).toEqual({
      status: 400,
      error: expect.stringMatching(error),
    });
  }
  const tpl = await admin()
    .post(`/admin/projects/${p.projectId}/shops`)
    .set(TOKEN)
    .send({ shop_domain: `t-${run}.test`, abandoned_template_id: "00000000-0000-4000-8000-000000000000" });
  expect(tpl.status).toBe(400);
  expect(tpl.body.error).toBe("abandoned_template_id: no such template in the project");
  expect((await admin().get(`/admin/projects/nope/shops`).set(TOKEN)).status).toBe(404);
  expect((await admin().get(`/admin/projects/${p.projectId}/shops/nope`).set(TOKEN)).status).toBe(404);
  expect((await request(h.internal).get(`/admin/projects/${p.projectId}/shops`)).status).toBe(401);
});

it("409 for a domain connected elsewhere names that project and its shop", async () => {
  const owner = await makeProject(h.deps);
  const other = await makeProject(h.deps);
  const domain = `taken-${run}.myshop.test`;
  const created = await admin()
    .post(`/admin/projects/${owner.projectId}/shops`)
    .set(TOKEN)
    .send({ shop_domain: domain });
  expect(created.status).toBe(201);
  const { name } = (
    await h.deps.db.pool.query<{ name: string }>("SELECT name FROM projects WHERE id = $1", [owner.projectId])
  ).rows[0]!;
  const again = await admin()
    .post(`/admin/projects/${other.projectId}/shops`)
    .set(TOKEN)
    .send({ shop_domain: domain.toUpperCase() });
  expect({ status: again.status, body: again.body }).toEqual({
    status: 409,
    body: {
      success: false,
      error:
        `${domain} is already connected to project "${name}" (${owner.projectId}); disconnect it there ` +
        `(DELETE /admin/projects/${owner.projectId}/shops/${created.body.shop.id}) to connect it here`,
      project_id: owner.projectId,
      project_name: name,
      shop_id: created.body.shop.id,
    },
  });
});

it("a shop connected by a delivery shows as unsigned with its unsigned deliveries, and why abandoned carts are off", async () => {
  const p = await makeProject(h.deps, { verifiedSender: true });
  const domain = `unsigned-${run}.myshop.test`;
  // what shop-ingest does for a delivery naming a domain no project has
  const { connectShopFromDelivery } = await import("@emailsvc/db");
  const conn = await connectShopFromDelivery(h.deps.db, p.projectId, domain);
  for (const [webhookId, signed] of [
    ["a", false],
    ["b", false],
    ["c", true],
  ] as const)
    await h.deps.db.pool.query(
      `INSERT INTO shop_webhook_events (id, project_id, shop_id, webhook_id, topic, payload, signed)
       VALUES (gen_random_uuid(), $1, $2, $3, 'cart/update', '{}', $4)`,
      [p.projectId, conn!.id, webhookId, signed],
    );
  const tpl = (
    await h.deps.db.pool.query<{ id: string }>(
      `INSERT INTO templates (id, project_id, internal_id, name, subject, html)
       VALUES (gen_random_uuid(), $1, 1, 't', 's', 'h') RETURNING id`,
      [p.projectId],
    )
  ).rows[0]!.id;
  const url = `/admin/projects/${p.projectId}/shops/${conn!.id}`;
  const steps = await admin()
    .patch(url)
    .set(TOKEN)
    .send({ abandoned_template_id: tpl, abandoned_from_email: p.sender });
  expect(steps.status).toBe(200);
  const shown = (await admin().get(url).set(TOKEN)).body.shop;
  expect(shown).toMatchObject({
    shop_domain: domain,
    has_secret: false,
    signed: false,
    connected_by: "delivery",
    unsigned_deliveries: 2,
    allow_unsigned_abandoned_cart: false,
    abandoned_cart_enabled: false,
    abandoned_cart_off_reason: expect.stringMatching(
      /^the shop has no webhook secret, so its checkouts arrive unsigned.*allow_unsigned_abandoned_cart/,
    ),
  });
  const listed = (await admin().get(`/admin/projects/${p.projectId}/shops`).set(TOKEN)).body.shops;
  expect(listed).toEqual([expect.objectContaining({ id: conn!.id, unsigned_deliveries: 2, signed: false })]);
  const allowed = await admin().patch(url).set(TOKEN).send({ allow_unsigned_abandoned_cart: true });
  expect(allowed.body.shop).toMatchObject({
    allow_unsigned_abandoned_cart: true,
    abandoned_cart_enabled: true,
    abandoned_cart_off_reason: null,
  });
  // a secret makes it signed; abandoned carts no longer depend on the allowance
  await admin().patch(url).set(TOKEN).send({ allow_unsigned_abandoned_cart: false });
  const rotated = await admin().post(`${url}/rotate-secret`).set(TOKEN).send({ secret: "now-signed-123" });
  expect(rotated.body.shop).toMatchObject({ signed: true, abandoned_cart_enabled: true });
});
