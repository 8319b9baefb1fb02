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
