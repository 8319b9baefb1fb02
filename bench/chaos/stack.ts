/**
 * The stack bench/chaos runs against: `pnpm start`'s start.ts in a session of its own, on the private servers,
 * with supervision on (a killed service is restarted) and a second replica of send-worker and campaign-dispatcher.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export interface StackProcess {
  name: string;
  /** its HTTP port (readyz) */
  port: number;
}

export interface RunningStack {
  stateDir: string;
  log: string;
  /** Every service process, replicas included, in the order start.ts starts them. */
  services: StackProcess[];
  pidOf(name: string): number | null;
  /** The lines start.ts printed about supervision (`… exited (SIGKILL); restarting …`, `… restarted`). */
  supervisionLines(): string[];
  waitReady(name: string, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

const root = path.resolve(__dirname, "../..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Base ports of services.ts (a test of the dev-stack keeps that table; these are only the ones killed here). */
const BASE: Record<string, number> = {
  "public-api": 3001,
  "domain-service": 3002,
  "send-worker": 3003,
  "campaign-dispatcher": 3004,
  scheduler: 3005,
  "notification-ingest": 3006,
  "inbound-mail": 3007,
  "webhook-dispatcher": 3008,
  "shop-ingest": 3009,
  "smtp-relay": 3010,
};
export const REPLICAS = "send-worker=2,campaign-dispatcher=2";

export async function startStack(opts: {
  stateDir: string;
  offset: number;
  env: Record<string, string>;
  readyTimeoutMs: number;
}): Promise<RunningStack> {
  const stateDir = path.resolve(root, opts.stateDir);
  fs.mkdirSync(stateDir, { recursive: true });
  const log = path.join(stateDir, "chaos-stack.log");
  const out = fs.openSync(log, "w");
  const tsx = pathToFileURL(require.resolve("tsx", { paths: [path.join(root, "tools/dev-stack")] })).href;
  // detached: a session and process group of its own, so its Ctrl-C (SIGINT to the group) reaches only it
  const proc: ChildProcess = spawn(
    process.execPath,
    ["--import", tsx, "--conditions=development", "tools/dev-stack/src/start.ts"],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", out, out],
      env: {
        ...process.env,
        ...opts.env,
        STACK_STATE_DIR: opts.stateDir,
        STACK_PORT_OFFSET: String(opts.offset),
        STACK_REPLICAS: REPLICAS,
        STACK_SUPERVISE: "1",
        // start.ts's own wait for every /readyz (120 s by default) would give up first on a loaded machine
        STACK_READY_TIMEOUT_MS: String(opts.readyTimeoutMs),
      },
    },
  );
  const read = () => fs.readFileSync(log, "utf8");
  const deadline = Date.now() + opts.readyTimeoutMs;
  for (;;) {
    const text = read();
    if (text.includes("Ctrl-C stops everything")) break;
    if (proc.exitCode !== null || Date.now() > deadline)
      throw new Error(`the stack did not start (see ${log}):\n${text.split("\n").slice(-15).join("\n")}`);
    await sleep(500);
  }
  const services: StackProcess[] = Object.entries(BASE).flatMap(([name, port]) => [
    { name, port: port + opts.offset },
    ...(REPLICAS.includes(`${name}=2`) ? [{ name: `${name}-2`, port: port + opts.offset + 50 }] : []),
  ]);
  return {
    stateDir,
    log,
    services,
    pidOf(name) {
      try {
        return Number(fs.readFileSync(path.join(stateDir, "pids", `${name}.pid`), "utf8").trim()) || null;
      } catch {
        return null;
      }
    },
    supervisionLines: () =>
      read()
        .split("\n")
        .filter((l) => /exited \(|restarted$/.test(l)),
    async waitReady(name, timeoutMs) {
      const svc = services.find((s) => s.name === name)!;
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const ok = await fetch(`http://127.0.0.1:${svc.port}/readyz`, {
          signal: AbortSignal.timeout(2000),
        }).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return true;
        await sleep(250);
      }
      return false;
    },
    async stop() {
      if (proc.exitCode !== null) return;
      try {
        process.kill(-proc.pid!, "SIGINT");
      } catch {
        return;
      }
      const until = Date.now() + 40_000;
      while (proc.exitCode === null && Date.now() < until) await sleep(250);
      if (proc.exitCode === null) process.kill(-proc.pid!, "SIGKILL");
    },
  };
}
