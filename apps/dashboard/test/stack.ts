// The real stack behind the browser tests: public-api (both listeners) as a child process on this package's own
// freshly migrated database and RabbitMQ vhost (@emailsvc/testing's global set-up, the one every jest package uses),
// serving the built dashboard from apps/dashboard/dist-test (the test script's own build: `npm start` builds dist,
// and a dev stack started by another package's test at the same time must not rebuild what this test serves). Nothing is faked; the test drives it through HTTP only.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, spawnTs, waitFor } from "@emailsvc/testing";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
export const dashboardRoot = path.resolve(here, "..");
export const artifacts = path.join(here, "artifacts");
const testingDir = path.dirname(require.resolve("@emailsvc/testing/jest-preset"));

export const ADMIN_TOKEN = "admin-token-for-dashboard-tests-0123456789";

export interface Stack {
  /** The admin listener, where /dashboard and /admin live. */
  internal: string;
  /** The public listener (/v1). */
  public: string;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** `env`: more of public-api's environment (DOMAIN_SERVICE_URL for the Domains page's test). */
export async function startStack(opts: { env?: Record<string, string> } = {}): Promise<Stack> {
  if (!existsSync(path.join(dashboardRoot, "dist-test", "index.html")))
    throw new Error(
      "apps/dashboard/dist-test is missing: the test script builds it first (vite build --outDir dist-test)",
    );
  mkdirSync(artifacts, { recursive: true });
  const setup = require(path.join(testingDir, "src/global-setup.js")) as (c: {
    rootDir: string;
  }) => Promise<void>;
  const teardown = require(path.join(testingDir, "src/global-teardown.js")) as (c: {
    rootDir: string;
  }) => Promise<void>;
  await setup({ rootDir: dashboardRoot });

  const [port, internalPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawnTs(path.resolve(dashboardRoot, "../public-api/src/main.ts"), {
    cwd: path.resolve(dashboardRoot, "../public-api"),
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      NODE_ENV: "test",
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      INTERNAL_PORT: String(internalPort),
      API_KEY_ENCRYPTION_KEY: "cd".repeat(32),
      ADMIN_TOKEN,
      INTERNAL_TOKEN: "internal-token-for-dashboard-tests-0123",
      TRACKING_SECRET: "tracking-secret-for-dashboard-tests",
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AUTH_FAILURE_LIMIT: "0",
      // no provider here: the overview's provider quota is unknown at once (nothing listens on port 9)
      SES_ENDPOINT: "http://127.0.0.1:9",
      DASHBOARD_DIST: path.join(dashboardRoot, "dist-test"),
      ...opts.env,
    },
  });
  const internal = `http://127.0.0.1:${internalPort}`;
  let exited = false;
  child.once("exit", () => (exited = true));
  await waitFor(
    async () => {
      if (exited) throw new Error("public-api exited during start-up (its output is above)");
      return (await fetch(`${internal}/dashboard/`).catch(() => null))?.ok;
    },
    60_000,
    "public-api's admin listener to serve /dashboard",
    200,
  );

  return {
    internal,
    public: `http://127.0.0.1:${port}`,
    async admin(method, p, body) {
      const res = await fetch(`${internal}${p}`, {
        method,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as any };
    },
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        await waitFor(() => exited, 15_000, "public-api to stop").catch(() => child.kill("SIGKILL"));
      }
      await teardown({ rootDir: dashboardRoot });
    },
  };
}
