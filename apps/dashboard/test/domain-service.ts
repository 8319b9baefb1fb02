// domain-service (its internal port) and the provider simulator as child processes, beside stack.ts's public-api:
// the Domains page's admin routes reach domain-service over HTTP (DOMAIN_SERVICE_URL), as in the stack. The
// simulator stands in for SES; its control API makes an identity verified (what DNS or the followed link does).
// Start it after startStack: stack.ts's set-up put the package's database and vhost in DATABASE_URL / RABBITMQ_URL.
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort, spawnTs, waitFor } from "@emailsvc/testing";
import { dashboardRoot } from "./stack";

const root = path.resolve(dashboardRoot, "../..");
export const DOMAINS_INTERNAL_TOKEN = "internal-token-for-dashboard-domains-0123";

export interface DomainService {
  /** domain-service's internal listener, where public-api's DOMAIN_SERVICE_URL points */
  url: string;
  start(): Promise<void>;
  /** The provider marks the identity (a domain or an address) verified. */
  verifyIdentity(identity: string): Promise<void>;
  stop(): Promise<void>;
}

function child(entry: string, env: NodeJS.ProcessEnv): { proc: ChildProcess; exited: () => boolean } {
  const proc = spawnTs(path.join(root, entry), {
    cwd: path.dirname(path.join(root, entry)),
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, ...env },
  });
  let exited = false;
  proc.once("exit", () => (exited = true));
  return { proc, exited: () => exited };
}

async function stopChild(c: { proc: ChildProcess; exited: () => boolean } | undefined, name: string) {
  if (!c || c.exited()) return;
  c.proc.kill("SIGTERM");
  await waitFor(() => c.exited(), 15_000, `${name} to stop`).catch(() => c.proc.kill("SIGKILL"));
}

/** Ports are chosen now (public-api needs the URL at its start); the processes start with start(). */
export async function domainService(): Promise<DomainService> {
  const [simPort, port, internalPort] = [await freePort(), await freePort(), await freePort()];
  const simUrl = `http://127.0.0.1:${simPort}`;
  let sim: ReturnType<typeof child> | undefined;
  let ds: ReturnType<typeof child> | undefined;
  const ready = (c: ReturnType<typeof child>, name: string, url: string) =>
    waitFor(
      async () => {
        if (c.exited()) throw new Error(`${name} exited during start-up (its output is above)`);
        return (await fetch(url).catch(() => null))?.ok;
      },
      60_000,
      `${name} to answer ${url}`,
      200,
    );
  return {
    url: `http://127.0.0.1:${internalPort}`,
    async start() {
      sim = child("tools/provider-simulator/src/main.ts", {
        SIMULATOR_PORT: String(simPort),
        SIMULATOR_HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
      });
      await ready(sim, "the provider simulator", `${simUrl}/`);
      ds = child("apps/domain-service/src/main.ts", {
        NODE_ENV: "test",
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error",
        HOST: "127.0.0.1",
        PORT: String(port),
        INTERNAL_PORT: String(internalPort),
        INTERNAL_TOKEN: DOMAINS_INTERNAL_TOKEN,
        SES_ENDPOINT: simUrl,
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "x",
        AWS_SECRET_ACCESS_KEY: "x",
      });
      await ready(ds, "domain-service", `http://127.0.0.1:${port}/readyz`);
    },
    async verifyIdentity(identity) {
      const res = await fetch(`${simUrl}/_sim/identities/${encodeURIComponent(identity)}/verify`, {
        method: "POST",
      });
      if (!res.ok) throw new Error(`the simulator did not verify ${identity}: ${res.status}`);
    },
    async stop() {
      await stopChild(ds, "domain-service");
      await stopChild(sim, "the provider simulator");
    },
  };
}
