import { projectIdOf } from "@emailsvc/contracts";
import express from "express";
import request from "supertest";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { apiKeyAuth, getAuth, MSG_INVALID_KEY_PREFIX, MSG_INVALID_OR_MISSING_KEY } from "./auth";
import { finishApp } from "./finish-app";
import { createServiceApp } from "./service-app";

// Plain fake of the key store: the real lookup is tested against PostgreSQL in packages/db and public-api.
const keys: Record<string, string> = {
  sk_live_good: "p-live",
  sk_proj_legacy: "p-legacy",
  sk_test_good: "p-test",
};

function buildApp() {
  const logger = createLogger({ service: "t", level: "silent" });
  const app = createServiceApp({ logger, metrics: createMetrics("t") });
  app.use(express.json());
  app.get(
    "/v1/whoami",
    apiKeyAuth(async (k) => (keys[k] ? { projectId: projectIdOf(keys[k]!), keyId: "k" } : null)),
    (_req, res) => {
      res.json(getAuth(res));
    },
  );
  return finishApp(app, logger);
}

describe("apiKeyAuth (spec section 5)", () => {
  const app = buildApp();

  it.each([
    ["sk_live_good", "live", "p-live"],
    ["sk_proj_legacy", "live", "p-legacy"],
    ["sk_test_good", "test", "p-test"],
  ])("accepts %s as %s mode", async (key, mode, projectId) => {
    const res = await request(app).get("/v1/whoami").set("Authorization", `Bearer ${key}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode, projectId });
  });

  it.each([
    ["no header", undefined],
    ["empty bearer", "Bearer "],
    ["basic scheme", "Basic sk_live_good"],
    ["unknown live key", "Bearer sk_live_nope"],
    ["unknown test key", "Bearer sk_test_nope"],
    ["unknown legacy key", "Bearer sk_proj_nope"],
  ])("401 with the missing/invalid body for %s", async (_name, header) => {
    const req = request(app).get("/v1/whoami");
    const res = header === undefined ? await req : await req.set("Authorization", header);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: MSG_INVALID_OR_MISSING_KEY });
    expect(MSG_INVALID_OR_MISSING_KEY).toBe("Unauthorized: Invalid or missing API key");
  });

  it.each(["pk_live_abc", "sk_dev_abc", "abc", "SK_LIVE_good"])(
    "401 with the prefix body for %s",
    async (key) => {
      const res = await request(app).get("/v1/whoami").set("Authorization", `Bearer ${key}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: MSG_INVALID_KEY_PREFIX });
      expect(MSG_INVALID_KEY_PREFIX).toBe(
        "Invalid API key prefix. Expected sk_proj_*, sk_live_* or sk_test_*.",
      );
    },
  );
});
