import express from "express";
import { listExpressRoutes } from "./list-routes";

describe("listExpressRoutes", () => {
  it("lists root routes and root-mounted routers, not 405 handlers, prefixed routers or health", () => {
    const app = express();
    app.get("/healthz", (_q, s) => void s.end());
    const r = express.Router();
    r.get("/v1/things/:id", (_q, s) => void s.end());
    r.delete("/v1/things/:id", (_q, s) => void s.end());
    r.all("/v1/things/:id", (_q, s) => void s.end());
    app.use(r);
    app.use(
      "/admin",
      express.Router().get("/secret", (_q, s) => void s.end()),
    );
    app.post("/v1/other", (_q, s) => void s.end());
    expect(listExpressRoutes(app)).toEqual(["DELETE /v1/things/:id", "GET /v1/things/:id", "POST /v1/other"]);
  });
});
