import type { Express } from "express";

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  slash?: boolean;
  handle?: { stack?: Layer[] };
}

const OPERATIONAL = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * `METHOD /path` of every route an Express app answers at its root (routes on the app and on routers mounted
 * without a prefix), sorted; `all` handlers (405 answers), HEAD and the operational endpoints are left out.
 * Routers mounted under a prefix (the internal /admin API) are not public and are skipped. The services' tests
 * compare this with the public OpenAPI document, so a route cannot be added without its reference entry.
 */
export function listExpressRoutes(app: Express): string[] {
  const out = new Set<string>();
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const p of paths)
          for (const [m, on] of Object.entries(layer.route.methods))
            if (on && m !== "_all" && m !== "head" && !OPERATIONAL.has(p)) out.add(`${m.toUpperCase()} ${p}`);
      } else if (layer.slash && layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return [...out].sort();
}
