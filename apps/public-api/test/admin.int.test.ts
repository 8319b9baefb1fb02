// The internal admin API (/admin on the internal port): project settings and webhook re-sends. Real PostgreSQL.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { makeProject, startHarness, testEnv, type Harness, type TestProject } from "./helpers";

let h: Harness;
let p: TestProject;
const TOKEN = { "x-admin-token": "admin-token-for-tests-0123456789" };

beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
});

const patch = (body: unknown) =>
  request(h.internal)
    .patch(`/admin/projects/${p.projectId}`)
    .set(TOKEN)
    .send(body as object);
const redeliver = (id: string) =>
  request(h.internal).post(`/admin/webhook-deliveries/${id}/redeliver`).set(TOKEN);

async function delivery(status: string, isTest = false): Promise<string> {
  const id = randomUUID();
  await h.deps.db.pool.query(
    `INSERT INTO webhook_deliveries (id, project_id, event_id, kind, event, is_test, url, body, status, attempts, updated_at)
     VALUES ($1, $2, $3, 'outbound', 'email.delivered', $4, 'https://old.example/hook', $5, $6, 5, now())`,
    [id, p.projectId, randomUUID(), isTest, JSON.stringify({ data: { activity_id: randomUUID() } }), status],
  );
  return id;
}

describe("project settings", () => {
  it("webhook URLs must be http or https; an empty string clears one", async () => {
    for (const bad of [
      "javascript:alert(1)",
      "file:///etc/passwd",
      "ftp://x.example/",
      "gopher://127.0.0.1:6379/_x",
    ]) {
      const res = await patch({ webhook_url: bad });
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body.error).toContain("must be an http or https URL");
    }
    const ok = await patch({
      webhook_url: "https://hooks.example/live",
      webhook_url_dev: "http://localhost:9/dev",
    });
    expect(ok.status).toBe(200);
    expect((await patch({ webhook_url: "" })).status).toBe(200);
    const row = await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } });
    expect({ live: row.webhookUrl, dev: row.webhookUrlDev }).toEqual({
      live: null,
      dev: "http://localhost:9/dev",
    });
  });
});

describe("a failing webhook receiver", () => {
  it("shows since when the webhook-dispatcher found each URL failing, null while it answers", async () => {
    const show = () => request(h.internal).get(`/admin/projects/${p.projectId}`).set(TOKEN);
    expect((await show()).body.project).toMatchObject({
      webhook_failing_since: null,
      webhook_dev_failing_since: null,
    });
    await h.deps.db.pool.query(
      "UPDATE projects SET webhook_failing_since = '2026-11-25T02:00:00.000Z' WHERE id = $1",
      [p.projectId],
    );
    expect((await show()).body.project).toMatchObject({
      webhook_failing_since: "2026-11-25T02:00:00.000Z",
      webhook_dev_failing_since: null,
    });
  });
});

describe("what to do with a send the worker died holding (on_send_unknown)", () => {
  it("re-sends by default; a project may choose to fail such sends; anything else is refused", async () => {
    const show = () => request(h.internal).get(`/admin/projects/${p.projectId}`).set(TOKEN);
    expect((await show()).body.project).toMatchObject({ on_send_unknown: "resend" });
    const res = await patch({ on_send_unknown: "fail" });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ on_send_unknown: "fail" });
    const row = await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } });
    expect(row.onSendUnknown).toBe("fail");
    expect((await patch({ on_send_unknown: "maybe" })).status).toBe(400);
    expect((await show()).body.project).toMatchObject({ on_send_unknown: "fail" });
  });
});

describe("project time zone and sender names", () => {
  it("stores a time zone with its usual capitals and refuses an unknown one", async () => {
    expect((await patch({ default_timezone: "europe/berlin" })).status).toBe(200);
    const row = await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } });
    expect(row.defaultTimezone).toBe("Europe/Berlin");
    // only the case is corrected: a current name ICU would resolve to an old alias stays as chosen
    expect((await patch({ default_timezone: "Asia/Kolkata" })).status).toBe(200);
    const kolkata = await h.deps.db.prisma.project.findUniqueOrThrow({ where: { id: p.projectId } });
    expect(kolkata.defaultTimezone).toBe("Asia/Kolkata");
    expect((await patch({ default_timezone: "Mars/Olympus" })).status).toBe(400);
  });

  it("refuses a sender display name of more than one line", async () => {
    const res = await request(h.internal)
      .post(`/admin/projects/${p.projectId}/senders`)
      .set(TOKEN)
      .send({ email: "one@example.org", name: "Evil\r\nBcc: a@b.c" });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("must be a single line");
  });
});

describe("POST /admin/webhook-deliveries/:id/redeliver", () => {
  it("re-sends a finished delivery: pending again, attempts reset", async () => {
    await patch({ webhook_url: "https://hooks.example/live" });
    const id = await delivery("exhausted");
    const res = await redeliver(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, delivery_id: id, status: "pending" });
    const d = await h.deps.db.pool.query("SELECT status, attempts FROM webhook_deliveries WHERE id = $1", [
      id,
    ]);
    expect(d.rows[0]).toEqual({ status: "pending", attempts: 0 });
  });

  it("409 while the delivery is still being retried, and when the project has no URL for its mode", async () => {
    await patch({ webhook_url: "https://hooks.example/live" });
    for (const status of ["pending", "failed"]) {
      const res = await redeliver(await delivery(status));
      expect(res.status).toBe(409);
      expect(res.body.error).toBe(
        `Webhook delivery is still being delivered (${status}); it can be sent again once it is finished`,
      );
    }
    // A test-mode delivery, and the project has no webhook_url_dev.
    const testDelivery = await delivery("exhausted", true);
    const res = await redeliver(testDelivery);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("The project has no webhook_url_dev to deliver to");
    const d = await h.deps.db.pool.query("SELECT status FROM webhook_deliveries WHERE id = $1", [
      testDelivery,
    ]);
    expect(d.rows[0].status).toBe("exhausted");
  });

  it("404 for an unknown or malformed id", async () => {
    expect((await redeliver(randomUUID())).status).toBe(404);
    expect((await redeliver("not-a-uuid")).status).toBe(404);
  });
});

describe("senders and the delivery list", () => {
  it("does not add as verified an address or domain another project has (409)", async () => {
    const other = await makeProject(h.deps);
    const res = await request(h.internal)
      .post(`/admin/projects/${p.projectId}/senders`)
      .set(TOKEN)
      .send({ email: other.sender, name: "Thief" });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe(`${other.sender} is already registered by another project`);
    const ok = await request(h.internal)
      .post(`/admin/projects/${p.projectId}/senders`)
      .set(TOKEN)
      .send({ email: "Mine@Example.ORG", name: "Me" });
    expect(ok.status).toBe(201);
    expect(ok.body.sender.sender_email).toBe("mine@example.org");
  });

  it("400 for a malformed project_id or an unknown status, instead of a 404 or an unfiltered list", async () => {
    const list = (q: string) => request(h.internal).get(`/admin/webhook-deliveries?${q}`).set(TOKEN);
    expect((await list(`project_id=${p.projectId}&status=bogus`)).status).toBe(400);
    expect((await list(`project_id=${p.projectId}&status=pending&status=failed`)).status).toBe(400);
    expect((await list("project_id=nope")).status).toBe(400);
    const ok = await list(`project_id=${p.projectId}&status=exhausted`);
    expect(ok.body).toEqual({ success: true, deliveries: [] });
  });
});

describe("GET /admin/projects: keyset pages", () => {
  it("pages through every project once with cursor and limit; without them, the first 500 as before", async () => {
    for (let i = 0; i < 4; i++) await makeProject(h.deps);
    const total = Number(
      (await h.deps.db.pool.query<{ n: string }>("SELECT count(*) AS n FROM projects")).rows[0]!.n,
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(h.internal)
        .get("/admin/projects")
        .query({ limit: 2, ...(cursor ? { cursor } : {}) })
        .set(TOKEN);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.projects.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.projects.map((x: { id: string }) => x.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor && pages < 1_000);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    const all = await request(h.internal).get("/admin/projects").set(TOKEN);
    expect(all.body.projects.map((x: { id: string }) => x.id)).toEqual(seen.slice(0, 500));
    expect(all.body.next_cursor).toBe(total > 500 ? expect.any(String) : null);
    for (const query of [{ cursor: "garbage" }, { limit: 0 }, { limit: 501 }, { limit: "x" }]) {
      const bad = await request(h.internal).get("/admin/projects").query(query).set(TOKEN);
      expect({ query, status: bad.status, error: bad.body.error }).toEqual({
        query,
        status: 400,
        error: expect.stringMatching(Object.keys(query)[0]!),
      });
    }
  });

  it("the admin OpenAPI document lists limit and cursor", async () => {
    const doc = (await request(h.internal).get("/admin/openapi.json").set(TOKEN)).body;
    expect(
      doc.paths["/admin/projects"].get.parameters.map(
        (x: { name: string; in: string }) => `${x.in}:${x.name}`,
      ),
    ).toEqual(["query:limit", "query:cursor"]);
  });
});

describe("require_signed_shop_webhooks", () => {
  it("is off by default, and set and shown like any project setting", async () => {
    const show = () => request(h.internal).get(`/admin/projects/${p.projectId}`).set(TOKEN);
    expect((await show()).body.project.require_signed_shop_webhooks).toBe(false);
    const res = await patch({ require_signed_shop_webhooks: true });
    expect(res.status).toBe(200);
    expect(res.body.project.require_signed_shop_webhooks).toBe(true);
    expect((await show()).body.project.require_signed_shop_webhooks).toBe(true);
    expect((await patch({ require_signed_shop_webhooks: "yes" })).status).toBe(400);
  });
});

describe("GET /admin/openapi.json", () => {
  it("describes every admin route, with the error answers", async () => {
    const res = await request(h.internal).get("/admin/openapi.json").set(TOKEN);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        "/admin/projects",
        "/admin/projects/{projectId}",
        "/admin/projects/{projectId}/keys",
        "/admin/projects/{projectId}/keys/{mode}/regenerate",
        "/admin/projects/{projectId}/templates",
        "/admin/projects/{projectId}/templates/{templateId}",
        "/admin/projects/{projectId}/senders",
        "/admin/webhook-deliveries",
        "/admin/webhook-deliveries/{deliveryId}/redeliver",
      ]),
    );
    expect(Object.keys(res.body.paths["/admin/projects/{projectId}/senders"].post.responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "404",
      "409",
      "413",
    ]);
  });
});
