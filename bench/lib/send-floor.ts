// The floor of bench/send-floor, as a phase any benchmark can run: see send-floor/run.ts and floor-service.ts.
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { cpuBetween, pidListeningOn, postgresCpuMs, type ProcGroup, snapshot } from "./proc-cpu";
import { DATABASE_URL, post, RABBITMQ_URL } from "./stack";

const root = path.resolve(__dirname, "../..");

function start(file: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "--conditions=development", file, ...args], {
    cwd: path.join(root, "bench"),
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

async function waitFor(cond: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const t = Date.now();
  while (!(await cond())) {
    if (Date.now() - t > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function pool(n: number, concurrency: number, fn: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

export interface FloorPhase {
  /** Emails per second, from the first accept to the last webhook received. */
  rate: number;
  /** CPU ms per email: "floor service", "postgresql", "rabbitmq", "simulator", "load generator and receiver". */
  perEmail: Map<string, number>;
  /** The floor service, PostgreSQL and RabbitMQ: what "total of our processes" stands for in send-pipeline. */
  ours: number;
  /** PostgreSQL's and RabbitMQ's CPU ms per second before the phase (taken out of the figures). */
  idle: { postgresql: number; rabbitmq: number };
}

/**
 * Starts a provider simulator (SIMULATOR_PORT, default 4599), the floor service (the next port) and a webhook
 * receiver, sends `warmup` emails, then `phases` phases of `n` emails with 50 in flight, and stops them all.
 * PostgreSQL's and RabbitMQ's idle CPU over 3 s before each phase is taken out of that phase.
 */
export async function runFloor(opts: { n: number; warmup: number; phases: number }): Promise<FloorPhase[]> {
  const simPort = Number(process.env.SIMULATOR_PORT ?? 4599);
  const floorPort = simPort + 1;
  let hits = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits++;
      res.end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const sim = start(path.join(root, "tools/provider-simulator/src/main.ts"), [], {
    SIMULATOR_PORT: String(simPort),
    SIMULATOR_HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
  });
  const simUrl = `http://127.0.0.1:${simPort}`;
  let floor: ChildProcess | undefined;
  try {
    await waitFor(
      () =>
        fetch(`${simUrl}/_sim/messages?limit=1`).then(
          (r) => r.ok,
          () => false,
        ),
      "the simulator",
    );
    floor = start(path.join(root, "bench/send-floor/floor-service.ts"), [
      DATABASE_URL,
      RABBITMQ_URL,
      simUrl,
      receiverUrl,
      String(floorPort),
    ]);
    await new Promise<void>((resolve, reject) => {
      floor!.once("message", () => resolve());
      floor!.once("exit", (code) => reject(new Error(`floor service exited ${code}`)));
    });
    const groups: ProcGroup[] = [
      { name: "floor service", find: () => [floor!.pid!] },
      { name: "postgresql", find: () => [], cpuMs: () => postgresCpuMs(5432) },
      { name: "rabbitmq", find: () => [pidListeningOn(5672)].filter((p): p is number => !!p) },
      { name: "simulator", find: () => [sim.pid!] },
    ];
    const sendOne = (i: number) =>
      post(
        `http://127.0.0.1:${floorPort}/send`,
        JSON.stringify({ to: `success+f${i}@simulator.amazonaws.com`, data: { i } }),
        { "Content-Type": "application/json" },
      ).then((r) => {
        if (r.status !== 200) throw new Error(`floor service answered ${r.status}`);
      });
    const phase = async (offset: number, n: number) => {
      const h0 = hits;
      const t = performance.now();
      await pool(n, 50, (i) => sendOne(offset + i));
      await waitFor(() => hits - h0 >= n, "the webhooks", 120_000);
      return performance.now() - t;
    };

    await phase(0, opts.warmup);
    const out: FloorPhase[] = [];
    for (let p = 1; p <= opts.phases; p++) {
      const idle0 = snapshot(groups);
      await new Promise((r) => setTimeout(r, 3000));
      const idle = cpuBetween(idle0, snapshot(groups));
      const before = snapshot(groups);
      const self = process.cpuUsage();
      const ms = await phase(p * 1_000_000, opts.n);
      const cpu = cpuBetween(before, snapshot(groups));
      const gen = process.cpuUsage(self);
      const perEmail = new Map<string, number>();
      for (const g of groups)
        perEmail.set(g.name, Math.max(0, (cpu.get(g.name)! - (idle.get(g.name)! * ms) / 3000) / opts.n));
      perEmail.set("load generator and receiver", (gen.user + gen.system) / 1000 / opts.n);
      out.push({
        rate: opts.n / (ms / 1000),
        perEmail,
        ours: ["floor service", "postgresql", "rabbitmq"].reduce((s, name) => s + perEmail.get(name)!, 0),
        idle: { postgresql: idle.get("postgresql")! / 3, rabbitmq: idle.get("rabbitmq")! / 3 },
      });
    }
    return out;
  } finally {
    if (floor && floor.exitCode === null) {
      floor.kill("SIGTERM");
      await new Promise((r) => floor!.once("exit", r));
    }
    sim.kill("SIGTERM");
    receiver.close();
  }
}
