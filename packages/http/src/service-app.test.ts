import express from "express";
import request from "supertest";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { AppError, ErrorCode } from "./errors";
import { requireJson } from "./error-middleware";
import { finishApp } from "./finish-app";
import { createServiceApp, loggedUrl } from "./service-app";

function buildApp(ready: boolean) {
  const logger = createLogger({ service: "t", level: "silent" });
  const app = createServiceApp({
    logger,
    metrics: createMetrics("t"),
    readiness: [{ name: "db", check: () => ready }],
  });
  app.post("/json", requireJson, express.json({ limit: "1kb" }), (req, res) => {
    res.json({ got: req.body });
  });
  app.get("/boom", () => {
    throw new Error("secret internal detail");
  });
  app.get("/sender", () => {
    throw new AppError(ErrorCode.SENDER_NOT_VERIFIED, "Sender a@b.com is not verified");
  });
  return finishApp(app, logger);
}

describe("service app", () => {
  it("serves /healthz, /readyz and /metrics", async () => {
    const app = buildApp(true);
    expect((await request(app).get("/healthz")).status).toBe(200);
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ db: true });
    const metrics = await request(app).get("/metrics");
    expect(metrics.text).toContain("http_request_duration_seconds");
  });

  it("answers 400 for a query value PostgreSQL text cannot hold, naming the parameter, before any route", async () => {
    const app = buildApp(true);
    const nul = await request(app).get("/sender?tag=%00");
    expect(nul.status).toBe(400);
    expect(nul.body.error).toBe('Query parameter "tag" must not contain NUL characters (\\u0000)');
    const name = await request(app).get("/sender?a%00b=1");
    expect(name.status).toBe(400);
    // an ordinary query reaches the route
    expect((await request(app).get("/sender?tag=x%20y")).status).toBe(403);
  });

  it("answers 503 on /readyz when a check fails", async () => {
    const res = await request(buildApp(false)).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ db: false });
  });

  it("maps errors to the spec body shapes", async () => {
    const app = buildApp(true);
    const boom = await request(app).get("/boom");
    expect(boom.status).toBe(500);
    expect(boom.body).toEqual({ success: false, error: "Internal server error" });
    const sender = await request(app).get("/sender");
    expect(sender.status).toBe(403);
    expect(sender.body).toEqual({
      success: false,
      error: "Sender a@b.com is not verified",
      code: "SENDER_NOT_VERIFIED",
    });
    const missing = await request(app).get("/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.success).toBe(false);
  });

  it("415 for non-JSON, 400 for broken JSON, 413 for too large", async () => {
    const app = buildApp(true);
    const text = await request(app).post("/json").set("Content-Type", "text/plain").send("hi");
    expect(text.status).toBe(415);
    const broken = await request(app).post("/json").set("Content-Type", "application/json").send("{bad");
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ success: false, error: "Invalid JSON body" });
    const big = await request(app)
      .post("/json")
      .send({ x: "y".repeat(5000) });
    expect(big.status).toBe(413);
  });

  it("echoes a request id", async () => {
    const res = await request(buildApp(true)).get("/healthz").set("X-Request-Id", "abc-123");
    expect(res.status).toBe(200);
    const res2 = await request(buildApp(true)).get("/nope").set("X-Request-Id", "abc-123");
    expect(res2.headers["x-request-id"]).toBe("abc-123");
  });

  it("leaves a link's signature out of the access log's URL", () => {
    expect(loggedUrl("/t/u/abc?sig=SECRET")).toBe("/t/u/abc?sig=redacted");
    expect(loggedUrl("/x?a=1&sig=S&b=2")).toBe("/x?a=1&sig=redacted&b=2");
    expect(loggedUrl("/t/u/abc?%73ig=SECRET&si%67=S2")).toBe("/t/u/abc?sig=redacted&sig=redacted");
    expect(loggedUrl("/v1/send-email")).toBe("/v1/send-email");
    expect(loggedUrl(undefined)).toBeUndefined();
  });
});
