import express from "express";
import request from "supertest";
import { createLogger } from "@emailsvc/observability";
import { createServiceApp, createLifecycle } from "@emailsvc/http";
import { baseReadiness, createBaseDeps, serve, serviceEnv } from "../src";

// Real PostgreSQL and RabbitMQ (the package's own database and vhost).
const env = serviceEnv(0).parse({
  DATABASE_URL: process.env.DATABASE_URL,
  RABBITMQ_URL: process.env.RABBITMQ_URL,
  PORT: "1",
  HOST: "127.0.0.1",
});

describe("service runtime", () => {
  it("is ready once the database answers and the broker declared its topology, and shuts down in order", async () => {
    const logger = createLogger({ service: "rt", level: "silent" });
    const deps = await createBaseDeps("rt", { ...env, PORT: 0 }, { logger });
    await deps.broker.ready();
    const app = createServiceApp({ logger, metrics: deps.metrics, readiness: baseReadiness(deps) });
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: true, broker: true });

    const lc = createLifecycle({ logger, timeoutMs: 5000, exit: () => undefined });
    const stopped: string[] = [];
    await serve(
      { deps, env: { ...env, PORT: 0 }, app: express(), stopWork: async () => void stopped.push("work") },
      lc,
    );
    await lc.shutdown("test");
    expect(stopped).toEqual(["work"]);
    expect(deps.broker.isReady()).toBe(false);
    await expect(deps.db.pool.query("SELECT 1")).rejects.toThrow();
  });
});
