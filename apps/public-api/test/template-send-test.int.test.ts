// Issue 45: the template editor's "Send a test". Real: PostgreSQL (the template, the send's message, activity and
// outbox row, the audit log) and the outbox relay; the email itself is the send-worker's (not running here).
import request from "supertest";
import { makeProject, startHarness, suppress, testEnv, type Harness, type TestProject } from "./helpers";

const ADMIN = { Authorization: "Bearer admin-token-for-tests-0123456789" };
const HOST = "dash.test";
const ORIGIN = `http://${HOST}`;
const PASSWORD = "a long enough password";
const run = Date.now().toString(36);

let h: Harness;
let p: TestProject;
let templateId: string;
beforeAll(async () => {
  h = await startHarness(testEnv());
  p = await makeProject(h.deps, { verifiedSender: true });
  const t = await request(h.internal).post(`/admin/projects/${p.projectId}/templates`).set(ADMIN).send({
    name: "Shipped",
    subject: "Order {order.id} shipped",
    html: '<h1>Hello {name || "there"}</h1>{{#each items}}<li>{this}</li>{{/each}}',
    text: "Hello {name}",
  });
  expect(t.status).toBe(201);
  templateId = t.body.template.template_id;
});
afterAll(async () => {
  await h?.close();
});

async function browserOf(role: string) {
  const email = `${role}-send-test-${run}@example.org`;
  expect(
    (await request(h.internal).post("/admin/users").set(ADMIN).send({ email, password: PASSWORD })).status,
  ).toBe(201);
  expect(
    (await request(h.internal).put(`/admin/projects/${p.projectId}/members`).set(ADMIN).send({ email, role }))
      .status,
  ).toBe(200);
  const res = await request(h.internal)
    .post("/admin/auth/sign-in")
    .set({ Host: HOST, Origin: ORIGIN })
    .send({ email, password: PASSWORD });
  return {
    email,
    headers: {
      Cookie: (res.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!,
      Host: HOST,
      Origin: ORIGIN,
      "x-csrf-token": res.body.csrf_token as string,
    },
  };
}
const sendTest = (headers: Record<string, string>, body: object, id = templateId) =>
  request(h.internal)
    .post(`/admin/projects/${p.projectId}/templates/${id}/send-test`)
    .set(headers)
    .send(body);
const message = async (id: string) =>
  (
    await h.deps.db.pool.query(
      `SELECT m.subject, m.html, m.text, m.from_email, m.source, m.headers, a.recipient, a.is_test, a.status
         FROM email_messages m JOIN activities a ON a.email_message_id = m.id WHERE m.id = $1`,
      [id],
    )
  ).rows[0];

describe("POST /admin/projects/:id/templates/:templateId/send-test", () => {
  it("a member sends the template rendered with the sample variables, as a test send from the project's sender", async () => {
    const m = await browserOf("member");
    const res = await sendTest(m.headers, {
      to: "qa@example.org",
      variables: { name: "Ada", order: { id: "Z-9" }, items: ["pen", "<ink>"] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      mode: "test",
      message: "Test of template Shipped queued for qa@example.org (test)",
    });
    expect(await message(res.body.email_id)).toMatchObject({
      subject: "[Test] Order Z-9 shipped",
      html: "<h1>Hello Ada</h1><li>pen</li><li>&lt;ink&gt;</li>",
      text: "Hello Ada",
      from_email: p.sender,
      source: "platform",
      recipient: "qa@example.org",
      is_test: true,
      status: "queued",
    });
    await new Promise((r) => setTimeout(r, 300));
    const audit = await h.deps.db.pool.query(
      "SELECT action, route, status, actor_email FROM audit_events WHERE project_id = $1 AND action = 'templates.send-test'",
      [p.projectId],
    );
    expect(audit.rows).toEqual([
      {
        action: "templates.send-test",
        route: "POST /admin/projects/:id/templates/:id/send-test",
        status: 200,
        actor_email: m.email,
      },
    ]);
  });

  it("sends live when asked; a suppressed address is skipped; an unknown template, an unverified sender and a viewer are refused", async () => {
    const live = await sendTest(ADMIN, { to: "live@example.org", mode: "live", from: p.sender });
    expect(live.status).toBe(200);
    expect((await message(live.body.email_id)).is_test).toBe(false);

    await suppress(h.deps, p.projectId, "gone@example.org", "bounce");
    const skipped = await sendTest(ADMIN, { to: "gone@example.org" });
    expect(skipped.body).toMatchObject({ skipped: true, recipient: "gone@example.org" });

    expect(
      (await sendTest(ADMIN, { to: "qa@example.org" }, "00000000-0000-4000-8000-000000000000")).status,
    ).toBe(404);
    const unverified = await sendTest(ADMIN, { to: "qa@example.org", from: "nobody@unverified.example" });
    expect(unverified.status).toBe(403);
    expect(unverified.body.code).toBe("SENDER_NOT_VERIFIED");
    expect((await sendTest(ADMIN, { to: "not an address" })).status).toBe(400);

    const v = await browserOf("viewer");
    const refused = await sendTest(v.headers, { to: "qa@example.org" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("Forbidden: this needs the member role in the project; you are a viewer");
  });
});
