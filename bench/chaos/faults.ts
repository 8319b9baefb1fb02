/**
 * The chaos run's faults, one after another on a schedule spread over the run: a SIGKILL of every service process
 * in turn (the second replicas of send-worker and campaign-dispatcher included), the private RabbitMQ restarted and
 * its connections closed, PostgreSQL and Redis restarted, and stretches of the simulator answering throttling
 * errors and 5xx. Each fault's window (from the fault to the system serving again) is written down: the 5xx
 * invariant is judged against them.
 */
import fs from "node:fs";
import type { Infra } from "./infra";
import type { RunningStack } from "./stack";

export interface FaultWindow {
  fault: string;
  /** the service whose answers the fault may turn into 5xx (killed), or the server faulted */
  target: string;
  from: number;
  to: number;
  note: string;
}

export interface Fault {
  name: string;
  target: string;
  run(): Promise<string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

export function buildFaults(
  stack: RunningStack,
  infra: Infra,
  simulatorUrl: string,
  stretchMs: number,
): Fault[] {
  const kill = (name: string): Fault => ({
    name: `SIGKILL ${name}`,
    target: name.replace(/-2$/, ""),
    async run() {
      const pid = stack.pidOf(name);
      const app = name.replace(/-2$/, "");
      // a pid file names the process start.ts started; make sure it is still that one before killing it
      if (!pid || !cmdline(pid).includes(`apps/${app}/src/main.ts`))
        throw new Error(`no live pid for ${name}`);
      process.kill(pid, "SIGKILL");
      const t = Date.now();
      while (stack.pidOf(name) === pid && Date.now() - t < 60_000) await sleep(200);
      const ready = await stack.waitReady(name, 120_000);
      return `pid ${pid} killed; restarted as ${stack.pidOf(name)}, ready after ${((Date.now() - t) / 1000).toFixed(1)} s${ready ? "" : " (NOT READY)"}`;
    },
  });
  const simFault = (kind: "throttling" | "5xx"): Fault => ({
    name: `simulator ${kind} for ${stretchMs / 1000} s`,
    target: "provider",
    async run() {
      const fault =
        kind === "throttling"
          ? {
              count: 1_000_000,
              status: 429,
              errorType: "TooManyRequestsException",
              message: "Maximum sending rate exceeded.",
            }
          : { count: 1_000_000, status: 500, errorType: "InternalFailure", message: "Simulated 5xx stretch" };
      const set = (body: unknown) =>
        fetch(`${simulatorUrl}/_sim/config`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      await set({ fault: { ...fault, operation: "SendEmail" } });
      await sleep(stretchMs);
      await set({ fault: null });
      return `every SendEmail answered ${fault.status} ${fault.errorType}`;
    },
  });
  const allReady = async () => {
    const t = Date.now();
    const ok = await Promise.all(stack.services.map((s) => stack.waitReady(s.name, 120_000)));
    return `every service ready ${((Date.now() - t) / 1000).toFixed(1)} s after${ok.every(Boolean) ? "" : " (SOME NOT READY)"}`;
  };
  return [
    kill("send-worker"),
    {
      name: "RabbitMQ close_all_connections",
      target: "rabbitmq",
      run: async () => (infra.closeRabbitConnections(), allReady()),
    },
    kill("public-api"),
    simFault("throttling"),
    kill("campaign-dispatcher"),
    {
      name: "PostgreSQL restart (immediate stop, 5 s down)",
      target: "postgres",
      run: async () => (await infra.restartPostgres(5000), allReady()),
    },
    kill("notification-ingest"),
    kill("send-worker-2"),
    {
      name: "Redis restart (3 s down, emptied)",
      target: "redis",
      run: async () => (await infra.restartRedis(3000), allReady()),
    },
    kill("webhook-dispatcher"),
    kill("inbound-mail"),
    {
      name: "RabbitMQ restart (stop, start)",
      target: "rabbitmq",
      run: async () => (await infra.restartRabbit(), allReady()),
    },
    kill("shop-ingest"),
    simFault("5xx"),
    kill("scheduler"),
    kill("campaign-dispatcher-2"),
    kill("domain-service"),
    kill("smtp-relay"),
  ];
}

/** Runs the faults `gapMs` apart (or back to back when one takes longer), writing down each one's window. */
export async function runFaults(
  faults: Fault[],
  gapMs: number,
  log: (line: string) => void,
): Promise<FaultWindow[]> {
  const windows: FaultWindow[] = [];
  const t0 = Date.now();
  for (const [i, f] of faults.entries()) {
    const due = t0 + (i + 1) * gapMs;
    if (due > Date.now()) await sleep(due - Date.now());
    const from = Date.now();
    let note: string;
    try {
      note = await f.run();
    } catch (err) {
      note = `FAILED: ${(err as Error).message}`;
    }
    const to = Date.now();
    windows.push({ fault: f.name, target: f.target, from, to, note });
    log(`  +${((from - t0) / 1000).toFixed(0).padStart(4)} s  ${f.name.padEnd(44)} ${note}`);
  }
  return windows;
}
