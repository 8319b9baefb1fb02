import express from "express";
import request from "supertest";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { finishApp } from "./finish-app";
import { internalAuth, isInternalToken, MSG_INTERNAL_TOKEN } from "./internal-auth";
import { createServiceApp } from "./service-app";

const TOKEN = "internal-token-for-tests-0123456789abcdef";

function buildApp(token: string | undefined) {
  const logger = createLogger({ service: "t", level: "silent" });
  const app = createServiceApp({ logger, metrics: createMetrics("t") });
  app.get("/healthz", (_req, res) => void res.json({ ok: true }));
  app.use(internalAuth({ token, exceptPrefixes: ["/admin"] }));
  app.post("/send-email", express.json(), (_req, res) => void res.json({ sent: true }));
  app.get("/admin/projects", (_req, res) => void res.json({ admin: true }));
  app.get("/administrator", (_req, res) => void res.json({ other: true }));
  return finishApp(app, logger);
}

describe("internalAuth", () => {
  const app = buildApp(TOKEN);

  it("answers 401 without the token, with a wrong one, or with a Bearer that is not it", async () => {
    for (const headers of [
      {},
      { "x-internal-token": "wrong" },
      { "x-internal-token": `${TOKEN}x` },
      { Authorization: "Bearer sk_live_abc" },
      { Authorization: `Basic ${TOKEN}` },
    ]) {
      const res = await request(app).post("/send-email").set(headers).send({});
      expect({ headers, status: res.status, body: res.body }).toEqual({
        headers,
        status: 401,
        body: { success: false, error: MSG_INTERNAL_TOKEN },
      });
    }
  });

  it("lets the token through in x-internal-token or as a Bearer token", async () => {
    await request(app).post("/send-email").set("x-internal-token", TOKEN).send({}).expect(200, { sent: true });
    await request(app)
      .post("/send-email")
      .set("Authorization", `Bearer ${TOKEN}`)
      .send({})
      .expect(200, { sent: true });
  });

  it("leaves the routes before it (health) and the excepted prefix to themselves, and only that prefix", async () => {
    await request(app).get("/healthz").expect(200);
    await request(app).get("/admin/projects").expect(200, { admin: true });
    await request(app).get("/administrator").expect(401);
  });

  it("refuses everything when no token is configured, even an empty one given", async () => {
    const open = buildApp(undefined);
    await request(open).post("/send-email").send({}).expect(401);
    await request(open).post("/send-email").set("x-internal-token", "").send({}).expect(401);
    expect(isInternalToken("", "")).toBe(false);
  });
});
