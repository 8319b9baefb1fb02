/**
 * bench/send-floor (issue 28): the CPU per email of the hops the pipeline cannot do without, on this machine.
 * `floor-service.ts` makes each hop once with the bare libraries (HTTP accept, a durable INSERT of the activity and
 * its outbox row, a confirmed publish to a quorum queue and its consume, SES SendEmail through the SDK, an UPDATE
 * with the event's outbox row, a second publish and consume, an HMAC-signed webhook POST and its delivery row).
 * Nothing of ours runs: no auth, validation, idempotency, suppressions, quota, MIME, claims, events, tracking or
 * attempt log. What this costs is the floor under `send-pipeline`'s "total of our processes": a goal below it
 * cannot be met on this machine by any code of ours.
 *
 * Needs only PostgreSQL and RabbitMQ: it starts its own provider simulator (on SIMULATOR_PORT, default 4599) and
 * its own schema `floor_bench`, dropped at the end. PostgreSQL's and RabbitMQ's CPU is read for the whole server:
 * run it with the stack stopped. Their idle CPU over 3 s before each phase is printed and taken out.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development send-floor/run.ts [--n 3000] [--warmup 1000]
 */
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { cpuBetween, pidListeningOn, postgresCpuMs, type ProcGroup, snapshot } from "../lib/proc-cpu";
import { DATABASE_URL, numArg, post, RABBITMQ_URL } from "../lib/stack";

const N = numArg("n", 3000);
const WARMUP = numArg("warmup", 1000);
const SIM_PORT = Number(process.env.SIMULATOR_PORT ?? 4599);
const FLOOR_PORT = SIM_PORT + 1;
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

async function main() {
  if (pidListeningOn(3001))
    console.log(
      "  (a stack is up: its idle work shares PostgreSQL and RabbitMQ; stop it for a clean figure)",
    );
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
    SIMULATOR_PORT: String(SIM_PORT),
    SIMULATOR_HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
  });
  const simUrl = `http://127.0.0.1:${SIM_PORT}`;
  await waitFor(
    () =>
      fetch(`${simUrl}/_sim/messages?limit=1`).then(
        (r) => r.ok,
        () => false,
      ),
    "the simulator",
  );
  const floor = start(path.join(__dirname, "floor-service.ts"), [
    DATABASE_URL,
    RABBITMQ_URL,
    simUrl,
    receiverUrl,
    String(FLOOR_PORT),
  ]);
  await new Promise<void>((resolve, reject) => {
    floor.once("message", () => resolve());
    floor.once("exit", (code) => reject(new Error(`floor service exited ${code}`)));
  });

  const groups: ProcGroup[] = [
    { name: "floor service", find: () => [floor.pid!] },
    { name: "postgresql", find: () => [], cpuMs: () => postgresCpuMs(5432) },
    { name: "rabbitmq", find: () => [pidListeningOn(5672)].filter((p): p is number => !!p) },
    { name: "simulator", find: () => [sim.pid!] },
  ];
  const sendOne = (i: number) =>
    post(
      `http://127.0.0.1:${FLOOR_PORT}/send`,
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

  await phase(0, WARMUP);
  console.log(
    `send-floor: ${N} emails per phase, 50 in flight, the bare hops of the pipeline (see the header)`,
  );
  for (const p of [1, 2]) {
    const idle0 = snapshot(groups);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = cpuBetween(idle0, snapshot(groups));
    const before = snapshot(groups);
    const self = process.cpuUsage();
    const ms = await phase(p * 1_000_000, N);
    const cpu = cpuBetween(before, snapshot(groups));
    const gen = process.cpuUsage(self);
    const per = (name: string) => Math.max(0, (cpu.get(name)! - (idle.get(name)! * ms) / 3000) / N);
    const ours = ["floor service", "postgresql", "rabbitmq"].reduce((s, name) => s + per(name), 0);
    console.log(
      `  phase ${p}: ${(N / (ms / 1000)).toFixed(0)} emails/s end to end (webhooks received); CPU ms per email: ` +
        groups.map((g) => `${g.name} ${per(g.name).toFixed(3)}`).join(", ") +
        `, load generator and receiver ${((gen.user + gen.system) / 1000 / N).toFixed(3)}`,
    );
    console.log(
      `    floor of "total of our processes": ${ours.toFixed(3)} ms per email (send-pipeline's goal < 1.5); idle taken out: ` +
        `postgresql ${(idle.get("postgresql")! / 3).toFixed(0)} ms/s, rabbitmq ${(idle.get("rabbitmq")! / 3).toFixed(0)} ms/s`,
    );
  }
  floor.kill("SIGTERM");
  await new Promise((r) => floor.once("exit", r));
  sim.kill("SIGTERM");
  receiver.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
