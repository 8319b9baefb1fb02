// Issue 49 item 2: the internal port's routes need a credential. Real PostgreSQL, RabbitMQ, Redis; the internal app
// is built without the harness's token-adding wrapper, so every header here is what a caller would send.
import request from "supertest";
import { MSG_INTERNAL_TOKEN } from "@emailsvc/http";
import { createInternalApp } from "../src/app";
import { MSG_SENDER_NOT_ALLOWED } from "../src/internal-access/sender-allowlist";
import { INTERNAL_TOKEN, startHarness, testEnv, type Harness } from "./helpers";

const ADMIN = { "x-admin-token": "admin-token-for-tests-0123456789" };
const UNAUTHORIZED = { success: false, error: MSG_INTERNAL_TOKEN };

describe("internal routes need the internal token", () => {
  let h: Harness;
  let app: ReturnType<typeof createInternalApp>;
  beforeAll(async () => {
    h = await startHarness(testEnv());
    app = createInternalApp(h.deps);
  });
  afterAll(() => h.close());

  it.each([
    ["POST /send-email", "/send-email"],
    ["POST /trigger-job", "/trigger-job"],
  ])("%s without the token, or with a wrong one, is 401 and does nothing", async (_name, path) => {
    const body = { recipient: "a@b.example", sender: "ops@acme.example", subject: "s", html: "<p>x</p>" };
    for (const headers of [{}, { "x-internal-token": "wrong" }, { Authorization: "Bearer sk_live_nope" }]) {
      const res = await request(app).post(path).set(headers).send(body);
      expect({ headers, status: res.status, body: res.body }).toEqual({
        headers,
        status: 401,
        body: UNAUTHORIZED,
      });
    }
    // an admin token opens no route outside /admin
    await request(app).post(path).set(ADMIN).send(body).expect(401);
  });

  it("with the token (header or Bearer) the route answers for itself", async () => {
    const viaHeader = await request(app)
      .post("/send-email")
      .set("x-internal-token", INTERNAL_TOKEN)
      .send({ sender: "ops@acme.example" });
    expect(viaHeader.status).toBe(400);
    const viaBearer = await request(app)
      .post("/trigger-job")
      .set("Authorization", `Bearer ${INTERNAL_TOKEN}`)
      .send({ jobId: "not-a-uuid" });
    expect(viaBearer.body).toEqual({ success: false, error: "jobId must be a UUID" });
  });

  it("/admin keeps its own credential, the admin token, and the internal token alone does not open it", async () => {
    await request(app).get("/admin/projects").set(ADMIN).expect(200);
    await request(app).get("/admin/projects").set("x-internal-token", INTERNAL_TOKEN).expect(401);
  });

  it("health, readiness and metrics stay open for probes and Prometheus", async () => {
    await request(app).get("/healthz").expect(200);
    await request(app).get("/metrics").expect(200);
  });

  it("a service started without INTERNAL_TOKEN refuses every internal call", async () => {
    const env = { ...h.deps.env, INTERNAL_TOKEN: undefined };
    const open = createInternalApp({ ...h.deps, env });
    await request(open).post("/send-email").set("x-internal-token", "").send({}).expect(401);
    await request(open).post("/send-email").set("x-internal-token", INTERNAL_TOKEN).send({}).expect(401);
  });
});

describe("INTERNAL_SEND_SENDER_ALLOWLIST (optional)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(testEnv({ INTERNAL_SEND_SENDER_ALLOWLIST: "Ops@Allowed.example, @team.example" }));
  });
  afterAll(() => h.close());

  // No subject: a send the allowlist lets through is then the route's own 400, and nothing is sent.
  const send = (sender: string, headers: Record<string, string> = {}) =>
    request(h.internal)
      .post("/send-email")
      .set(headers)
      .send({ recipient: "a@b.example", sender, html: "<p>x</p>" });

  it("refuses a send without x-project-id from a sender not listed, with 403", async () => {
    const res = await send("ceo@another-tenant.example");
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ success: false, error: MSG_SENDER_NOT_ALLOWED });
  });

  it("lets listed addresses (any case) and addresses of listed domains through", async () => {
    for (const sender of ["ops@allowed.example", "OPS@ALLOWED.EXAMPLE", "anyone@team.example"]) {
      const res = await send(sender);
      expect({ sender, status: res.status, error: res.body.error as string }).toEqual({
        sender,
        status: 400,
        error: expect.stringContaining("subject"),
      });
    }
  });

  it("leaves sends with x-project-id to the project's own sender check", async () => {
    const res = await send("ceo@another-tenant.example", {
      "x-project-id": "00000000-0000-4000-8000-000000000000",
    });
    expect(res.status).toBe(400);
  });

  it("is off by default: the spec lets a send without x-project-id use any sender", () => {
    expect(testEnv().INTERNAL_SEND_SENDER_ALLOWLIST).toEqual([]);
  });
});
