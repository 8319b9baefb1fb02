import express from "express";
import request from "supertest";
import { createLogger } from "@emailsvc/observability";
import { errorMiddleware, methodNotAllowed, notFoundHandler } from "./error-middleware";

describe("methodNotAllowed", () => {
  const app = express();
  app.post("/v1/x", (_req, res) => {
    res.json({ ok: true });
  });
  app.all("/v1/x", methodNotAllowed("POST"));
  app.use(notFoundHandler);
  app.use(errorMiddleware(createLogger({ service: "t", level: "silent" })));

  it("answers another method on a known path with 405 and Allow, OPTIONS with 204 and Allow", async () => {
    for (const method of ["get", "put", "delete", "patch"] as const) {
      const res = await request(app)[method]("/v1/x");
      expect({ method, status: res.status, allow: res.headers.allow, body: res.body }).toEqual({
        method,
        status: 405,
        allow: "POST",
        body: { success: false, error: "Method not allowed" },
      });
    }
    const options = await request(app).options("/v1/x");
    expect({ status: options.status, allow: options.headers.allow }).toEqual({ status: 204, allow: "POST" });
    expect((await request(app).post("/v1/x")).body).toEqual({ ok: true });
    expect((await request(app).get("/v1/unknown")).status).toBe(404);
  });
});
