// Issue 49 item 2: POST /trigger-campaign needs the internal token. The dispatcher's internal app on real
// PostgreSQL and RabbitMQ (the preset's database and vhost); nothing is dispatched (no loop runs here).
import request from "supertest";
import { MSG_INTERNAL_TOKEN } from "@emailsvc/http";
import { createInternalApp } from "../src/app";
import { createDeps, type Deps } from "../src/deps";
import { readEnv } from "../src/env";

const TOKEN = "internal-token-for-campaign-tests-0123456789";
const UNKNOWN = { campaignId: "6f1c2b9a-0000-4000-8000-000000000000" };

describe("POST /trigger-campaign needs the internal token", () => {
  let deps: Deps;
  let kicks = 0;
  beforeAll(async () => {
    deps = await createDeps(
      readEnv({ ...process.env, NODE_ENV: "test", LOG_LEVEL: "silent", INTERNAL_TOKEN: TOKEN }),
    );
    deps.kick = () => void kicks++;
  });
  afterAll(async () => {
    await deps.broker.close();
    await deps.db.close();
  });

  it("answers 401 without the token or with a wrong one, and starts nothing", async () => {
    const app = createInternalApp(deps);
    for (const headers of [{}, { "x-internal-token": `${TOKEN}-not` }, { Authorization: "Bearer nope" }]) {
      const res = await request(app).post("/trigger-campaign").set(headers).send(UNKNOWN);
      expect({ headers, status: res.status, body: res.body }).toEqual({
        headers,
        status: 401,
        body: { success: false, error: MSG_INTERNAL_TOKEN },
      });
    }
    expect(kicks).toBe(0);
  });

  it("with the token the route answers for itself (an unknown campaign: 404)", async () => {
    const app = createInternalApp(deps);
    const res = await request(app).post("/trigger-campaign").set("x-internal-token", TOKEN).send(UNKNOWN);
    expect(res.status).toBe(404);
    await request(app).post("/trigger-campaign").set("Authorization", `Bearer ${TOKEN}`).send(UNKNOWN).expect(404);
  });

  it("keeps /healthz open for the probes", async () => {
    await request(createInternalApp(deps)).get("/healthz").expect(200);
  });

  it("refuses every call when the service runs without INTERNAL_TOKEN", async () => {
    const app = createInternalApp({ ...deps, env: { ...deps.env, INTERNAL_TOKEN: undefined } });
    await request(app).post("/trigger-campaign").set("x-internal-token", TOKEN).send(UNKNOWN).expect(401);
  });
});
