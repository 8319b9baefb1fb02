// domain-service and the provider simulator as child processes, for the admin API's domain routes: public-api
// reaches domain-service's internal port over HTTP (DOMAIN_SERVICE_URL) as it does in the stack, so the tests run
// the real service on the package's own database, vhost and Redis, with the simulator standing in for SES.
// Verification is made to pass through the simulator's control API (POST /_sim/identities/:identity/verify).
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort, spawnTs, waitFor } from "@emailsvc/testing";
import { INTERNAL_TOKEN } from "./helpers";

const root = path.resolve(__dirname, "../../..");

export interface DomainServiceStack {
  /** DOMAIN_SERVICE_URL for public-api: domain-service's internal listener */
  url: string;
  /** the provider simulator (its /_sim control API) */
  simulatorUrl: string;
  /** The provider marks the identity (a domain or an address) verified, as when its DNS or link was done. */
  verifyIdentity(identity: string): Promise<void>;
  stop(): Promise<void>;
}

function started(child: ChildProcess, name: string, url: string) {
  let exited = false;
  child.once("exit", () => (exited = true));
  return {
    ready: waitFor(
      async () => {
        if (exited) throw new Error(`${name} exited during start-up (its output is above)`);
        return (await fetch(url).catch(() => null))?.ok;
      },
      60_000,
      `${name} to answer ${url}`,
      200,
    ),
    async stop() {
      if (exited) return;
      child.kill("SIGTERM");
      await waitFor(() => exited, 15_000, `${name} to stop`).catch(() => child.kill("SIGKILL"));
    },
  };
}

export async function startDomainService(): Promise<DomainServiceStack> {
  const [simPort, port, internalPort] = [await freePort(), await freePort(), await freePort()];
  const stdio = ["ignore", "inherit", "inherit"] as const;
  const sim = started(
    spawnTs(path.join(root, "tools/provider-simulator/src/main.ts"), {
      cwd: path.join(root, "tools/provider-simulator"),
      stdio: [...stdio],
      env: {
        ...process.env,
        SIMULATOR_PORT: String(simPort),
        SIMULATOR_HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
      },
    }),
    "the provider simulator",
    `http://127.0.0.1:${simPort}/`,
  );
  await sim.ready;
  const simulatorUrl = `http://127.0.0.1:${simPort}`;
  const ds = started(
    spawnTs(path.join(root, "apps/domain-service/src/main.ts"), {
      cwd: path.join(root, "apps/domain-service"),
      stdio: [...stdio],
      env: {
        ...process.env,
        NODE_ENV: "test",
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error",
        HOST: "127.0.0.1",
        PORT: String(port),
        INTERNAL_PORT: String(internalPort),
        INTERNAL_TOKEN,
        SES_ENDPOINT: simulatorUrl,
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "x",
        AWS_SECRET_ACCESS_KEY: "x",
        AUTH_FAILURE_LIMIT: "0",
      },
    }),
    "domain-service",
    `http://127.0.0.1:${port}/readyz`,
  );
  await ds.ready.catch(async (err: unknown) => {
    await sim.stop();
    throw err;
  });
  return {
    url: `http://127.0.0.1:${internalPort}`,
    simulatorUrl,
    async verifyIdentity(identity) {
      const res = await fetch(`${simulatorUrl}/_sim/identities/${encodeURIComponent(identity)}/verify`, {
        method: "POST",
      });
      if (!res.ok)
        throw new Error(`the simulator did not verify ${identity}: ${res.status} ${await res.text()}`);
    },
    async stop() {
      await ds.stop();
      await sim.stop();
    },
  };
}
