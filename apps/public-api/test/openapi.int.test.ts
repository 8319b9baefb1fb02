// The public API reference served by public-api: GET /v1/openapi.json, the /docs page and its offline assets,
// and route coverage: the routes this app serves are exactly the ones the document lists under public-api.
import request from "supertest";
import { publicRoutesOf } from "@emailsvc/contracts";
import { listExpressRoutes } from "@emailsvc/http";
import { startHarness, testEnv, type Harness } from "./helpers";

let h: Harness;
beforeAll(async () => {
  h = await startHarness(testEnv());
});
afterAll(async () => {
  await h?.close();
});

describe("the public API reference", () => {
  it("GET /v1/openapi.json answers the OpenAPI 3.1 document without a key", async () => {
    const res = await request(h.app).get("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.paths["/v1/send-batch"].post["x-service"]).toBe("public-api");
    expect(res.body.paths["/domains/register"].post["x-service"]).toBe("domain-service");
  });

  it("GET /docs is a page over the document whose scripts are served here, not from a CDN", async () => {
    const page = await request(h.app).get("/docs");
    expect(page.status).toBe(200);
    expect(page.text).toContain('url: "/v1/openapi.json"');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      expect(asset.startsWith("/docs/assets/")).toBe(true);
      const res = await request(h.app).get(asset);
      expect(res.status).toBe(200);
      expect(Number(res.headers["content-length"] ?? res.body.length)).toBeGreaterThan(1000);
    }
  });

  it("lists every public route this app serves, and no route it does not serve", () => {
    expect(listExpressRoutes(h.app)).toEqual(publicRoutesOf("public-api"));
  });
});
