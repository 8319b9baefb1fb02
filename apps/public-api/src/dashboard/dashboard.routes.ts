import { existsSync } from "node:fs";
import path from "node:path";
import express, { Router } from "express";

/**
 * The dashboard (apps/dashboard's built files) under /dashboard on the admin listener: the same origin as the admin
 * API, so the session cookie (SameSite=Strict) and the Origin check work without any CORS. Hashed assets are cached
 * for a year; index.html never, so a deploy is seen at the next load. Every other path under /dashboard is a page of
 * the single-page app (a deep link, a reload): index.html answers and the app's router draws it.
 */
export function dashboardRouter(opts: { dist: string }): Router {
  const r = Router();
  const index = path.join(opts.dist, "index.html");
  r.use(
    "/dashboard",
    express.static(opts.dist, {
      index: false,
      setHeaders: (res, file) =>
        res.setHeader(
          "Cache-Control",
          file.includes(`${path.sep}assets${path.sep}`) ? "public, max-age=31536000, immutable" : "no-cache",
        ),
    }),
  );
  r.get(["/dashboard", "/dashboard/{*page}"], (req, res) => {
    if (!existsSync(index)) {
      res
        .status(404)
        .type("html")
        .send(
          "<!doctype html><title>Dashboard not built</title><h1>The dashboard is not built</h1>" +
            `<p>No ${escape(index)}. Run <code>pnpm build</code> (or <code>pnpm --filter @emailsvc/dashboard build</code>) ` +
            "and reload; DASHBOARD_DIST names another folder.</p>",
        );
      return;
    }
    // the page's own assets are /dashboard/assets/…; a missing one is a 404, not the app
    if (req.path.startsWith("/dashboard/assets/")) return void res.status(404).end();
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index);
  });
  return r;
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
