import { fileURLToPath } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// Served by public-api's admin listener under /dashboard (src/dashboard/dashboard.routes.ts there).
export default defineConfig({
  base: "/dashboard/",
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: {
      // The template renderer alone, not packages/content's index (which pulls Node-only modules into the bundle):
      // the preview renders exactly what a send renders.
      "@emailsvc/content/render-template": fileURLToPath(
        new URL("../../packages/content/src/render-template.ts", import.meta.url),
      ),
    },
  },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
  server: {
    // `pnpm dev`: the admin API of a local `pnpm start` (same origin for the session cookie and the Origin check)
    proxy: { "/admin": "http://127.0.0.1:3101" },
  },
  test: {
    include: ["src/**/*.test.tsx", "test/**/*.browser.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // one browser, one stack: the browser tests run one file at a time
    fileParallelism: false,
  },
});
