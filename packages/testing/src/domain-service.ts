// domain-service (with its internal port) and the provider simulator as child processes, for tests of the admin
// API's domain routes: public-api reaches domain-service's internal port over HTTP (DOMAIN_SERVICE_URL) as it
// does in the stack, so the real service runs on the test package's own database, vhost and Redis (the caller's
// DATABASE_URL / RABBITMQ_URL), with the simulator standing in for SES. Verification is made to pass through the
// simulator's control API (POST /_sim/identities/:identity/verify), as DNS or a followed link would.
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { childEnv, testLogLevel } from "./env";
import { freePort, spawnTs, waitFor } from "./index";

export interface DomainServiceStack {
  /** domain-service's internal listener, where public-api's DOMAIN_SERVICE_URL points */
  url: string;
  /** the provider simulator (its /_sim control API) */
  simulatorUrl: string;
  /** Starts the simulator, then domain-service (ports were chosen when the stack was made). */
  start(): Promise<void>;
  /** The provider marks the identity (a domain or an address) verified. */
  verifyIdentity(identity: string): Promise<void>;
  stop(): Promise<void>;
}

function child(root: string, entry: string, env: Record<string, string>) {
  const proc: ChildProcess = spawnTs(path.join(root, entry), {
    cwd: path.dirname(path.join(root, entry)),
    stdio: ["ignore", "inherit", "inherit"],
    env: childEnv(env),
  });
  let exited = false;
  proc.once("exit", () => (exited = true));
  return {
    ready: (name: string, url: string) =>
      waitFor(
        async () => {
          if (exited) throw new Error(`${name} exited during start-up (its output is above)`);
          return (await fetch(url).catch(() => null))?.ok;
        },
        60_000,
        `${name} to answer ${url}`,
        200,
      ),
    async stop(name: string) {
      if (exited) return;
      proc.kill("SIGTERM");
      await waitFor(() => exited, 15_000, `${name} to stop`).catch(() => proc.kill("SIGKILL"));
    },
  };
}

/**
 * The stack's ports and URLs, chosen now (public-api needs DOMAIN_SERVICE_URL at its own start); `start()` starts
 * the processes. `root` is the repository's root; `internalToken` the INTERNAL_TOKEN public-api is given too.
 */
export async function domainServiceStack(opts: {
  root: string;
  internalToken: string;
}): Promise<DomainServiceStack> {
  const [simPort, port, internalPort] = [await freePort(), await freePort(), await freePort()];
  const simulatorUrl = `http://127.0.0.1:${simPort}`;
  let sim: ReturnType<typeof child> | undefined;
  let ds: ReturnType<typeof child> | undefined;
  const stop = async () => {
    await ds?.stop("domain-service");
    await sim?.stop("the provider simulator");
  };
  return {
    url: `http://127.0.0.1:${internalPort}`,
    simulatorUrl,
    async start() {
      sim = child(opts.root, "tools/provider-simulator/src/main.ts", {
        SIMULATOR_PORT: String(simPort),
        SIMULATOR_HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
      });
      await sim.ready("the provider simulator", `${simulatorUrl}/`);
      ds = child(opts.root, "apps/domain-service/src/main.ts", {
        NODE_ENV: "test",
        LOG_LEVEL: testLogLevel() ?? "error",
        HOST: "127.0.0.1",
        PORT: String(port),
        INTERNAL_PORT: String(internalPort),
        INTERNAL_TOKEN: opts.internalToken,
        SES_ENDPOINT: simulatorUrl,
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "x",
        AWS_SECRET_ACCESS_KEY: "x",
        AUTH_FAILURE_LIMIT: "0",
      });
      await ds.ready("domain-service", `http://127.0.0.1:${port}/readyz`).catch(async (err: unknown) => {
        await stop();
        throw err;
      });
    },
    async verifyIdentity(identity) {
      const res = await fetch(`${simulatorUrl}/_sim/identities/${encodeURIComponent(identity)}/verify`, {
        method: "POST",
      });
      if (!res.ok)
        throw new Error(`the simulator did not verify ${identity}: ${res.status} ${await res.text()}`);
    },
    stop,
  };
}

/** domainServiceStack, started. */
export async function startDomainService(opts: {
  root: string;
  internalToken: string;
}): Promise<DomainServiceStack> {
  const stack = await domainServiceStack(opts);
  await stack.start();
  return stack;
}
