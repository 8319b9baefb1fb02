import express, { Router } from "express";
import { getAbsoluteFSPath } from "swagger-ui-dist";
import { publicOpenApi } from "@emailsvc/contracts";

/** The reference page: Swagger UI from the npm bundle (served from here, no CDN) over /v1/openapi.json. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Email service API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#reference", deepLinking: true });
  </script>
</body>
</html>
`;

/** GET /v1/openapi.json (the public API reference, OpenAPI 3.1) and GET /docs (the same, as a page). */
export function docsRouter(): Router {
  const r = Router();
  const doc = JSON.stringify(publicOpenApi());
  r.get("/v1/openapi.json", (_req, res) => {
    res.type("application/json").setHeader("Cache-Control", "public, max-age=300");
    res.send(doc);
  });
  r.get("/docs", (_req, res) => {
    res.type("html").send(PAGE);
  });
  r.use("/docs/assets", express.static(getAbsoluteFSPath(), { index: false, maxAge: "1d" }));
  return r;
}
