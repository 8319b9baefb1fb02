/**
 * bench/send-chaos (issue 30): are sends lost or duplicated when the send-worker is killed while it drains?
 * Against a stack from `pnpm start` with the send rate off and the reconcile window scaled down, e.g.
 *
 *   SEND_RECONCILE_AFTER_MS=20000 SEND_RECONCILE_INTERVAL_MS=2000 SEND_RATE_PER_SECOND=0 \
 *     STACK_PORT_OFFSET=320 STACK_STATE_DIR=.local-a30 pnpm start
 *   STACK_PORT_OFFSET=320 STACK_STATE_DIR=.local-a30 pnpm --filter @emailsvc/bench send-chaos [--n 5000] [--kills 6]
 *     [--gap 1500] [--worker apps/send-worker/src/main.ts]
 *
 *   1. one POST /v1/send-batch of `n` recipients (test key);
 *   2. while it drains, SIGKILL the send-worker `kills` times, `--gap` ms (1,500) after it (re)started serving,
 *      and start it again each time with the same environment (read from the killed process);
 *   3. wait for the reconcile window (the worker's SEND_RECONCILE_AFTER_MS) and the loop to pass, then count the
 *      activities per status and the emails per recipient at the simulator, and print `lost` (no copy),
 *      `duplicated` (more than one copy) and `stuck` (still queued or sending). All three must be 0.
 *
 * The send-worker left running at the end is this script's (detached, same environment as the stack's); its pid
 * is printed. The stack's Ctrl-C does not stop it.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { demo, numArg } from "../lib/stack";

const d = demo();
const N = numArg("n", 5000);
const KILLS = numArg("kills", 6);
const GAP_MS = numArg("gap", 1500);
/** `--worker <main.ts>`: restart another build of the worker, e.g. one from before the fix, as a control. */
const workerArg = process.argv.indexOf("--worker");
const WORKER_MAIN = (workerArg >= 0 && process.argv[workerArg + 1]) || "apps/send-worker/src/main.ts";
const offset = Number(process.env.STACK_PORT_OFFSET ?? 0);
const root = path.resolve(__dirname, "../..");
const stateDir = path.resolve(root, process.env.STACK_STATE_DIR ?? ".local");
const API = `http://127.0.0.1:${3001 + offset}`;
const WORKER_PORT = 3003 + offset;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The process listening on the send-worker's port: the stack's worker, or the one this script started. */
function workerPid(): number {
  const out = execFileSync("ss", ["-ltnpH", `sport = :${WORKER_PORT}`], { encoding: "utf8" });
  const m = /pid=(\d+)/.exec(out);
  if (!m) throw new Error(`no send-worker listening on :${WORKER_PORT} (is the stack up, with this offset?)`);
  return Number(m[1]);
}

function environOf(pid: number): Record<string, string> {
  const raw = fs.readFileSync(`/proc/${pid}/environ`, "utf8");
  return Object.fromEntries(
    raw
      .split("\0")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
}

/** node itself with tsx as a loader, so the pid is the worker's (the tsx CLI would run it in a grandchild). */
function startWorker(env: Record<string, string>): ChildProcess {
  const log = fs.openSync(path.join(stateDir, "logs", "send-worker.log"), "a");
  const child = spawn(process.execPath, ["--conditions=development", "--import", "tsx", WORKER_MAIN], {
    cwd: root,
    env,
    detached: true,
    stdio: ["ignore", log, log],
  });
  child.unref();
  return child;
}

async function waitServing(timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${WORKER_PORT}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error("the restarted send-worker did not become ready");
}

async function main() {
  const firstPid = workerPid();
  const env = environOf(firstPid);
  const afterMs = Number(env.SEND_RECONCILE_AFTER_MS ?? 15 * 60_000);
  const intervalMs = Number(env.SEND_RECONCILE_INTERVAL_MS ?? 60_000);
  if (afterMs > 120_000)
    console.warn(
      `the worker's reconcile window is ${afterMs / 1000} s: the run waits that long after the kills`,
    );
  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();

  await fetch(`${d.simulator_url}/_sim/reset`, { method: "POST" });
  const recipients = Array.from({ length: N }, (_, i) => `success+chaos${i}@simulator.amazonaws.com`);
  const t0 = Date.now();
  const res = await fetch(`${API}/v1/send-batch`, {
    method: "POST",
    headers: { Authorization: `Bearer ${d.test_key}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      sender: d.sender_email,
      subject: "Chaos {{i}}",
      html: "<p>Hello {{i}}</p>",
      recipients: recipients.map((email, i) => ({ email, data: { i } })),
    }),
  });
  const json = (await res.json()) as { batch_id?: string; error?: string };
  if (res.status !== 200 || !json.batch_id)
    throw new Error(`send-batch answered ${res.status}: ${json.error}`);
  const batchId = json.batch_id;
  console.log(`send-chaos: batch ${batchId} of ${N} accepted in ${Date.now() - t0} ms`);

  const statuses = async (): Promise<Record<string, number>> => {
    const r = await db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM activities WHERE batch_id = $1 GROUP BY status ORDER BY status",
      [batchId],
    );
    return Object.fromEntries(r.rows.map((x) => [x.status, x.n]));
  };

  let pid = firstPid;
  let lastKill = 0;
  for (let k = 1; k <= KILLS; k++) {
    await sleep(GAP_MS);
    process.kill(pid, "SIGKILL");
    lastKill = Date.now();
    const at = await statuses();
    console.log(
      `  kill ${k} at +${((lastKill - t0) / 1000).toFixed(1)} s (pid ${pid}): queued ${at.queued ?? 0}, sending ${at.sending ?? 0}, past sending ${N - (at.queued ?? 0) - (at.sending ?? 0)}`,
    );
    // the killed worker's port must be free before the new one can serve
    while (execFileSync("ss", ["-ltnH", `sport = :${WORKER_PORT}`], { encoding: "utf8" }).trim())
      await sleep(50);
    const child = startWorker(env);
    pid = child.pid!;
    await waitServing();
  }

  // Past the window, and two passes of the loop, everything claimed and never answered has been settled.
  const until = lastKill + afterMs + 2 * intervalMs + 15_000;
  console.log(`  waiting for the reconcile window (${afterMs / 1000} s after the last kill)…`);
  for (;;) {
    const st = await statuses();
    const open = (st.queued ?? 0) + (st.sending ?? 0);
    if ((open === 0 && Date.now() > lastKill + afterMs + intervalMs) || Date.now() > until) break;
    await sleep(1000);
  }

  const st = await statuses();
  const sim = (await (await fetch(`${d.simulator_url}/_sim/messages`)).json()) as {
    messages: { destination: string[] }[];
  };
  const copies = new Map<string, number>(recipients.map((r) => [r, 0]));
  for (const m of sim.messages)
    for (const to of m.destination) if (copies.has(to)) copies.set(to, copies.get(to)! + 1);
  const lost = [...copies.values()].filter((n) => n === 0).length;
  const duplicated = [...copies.values()].filter((n) => n > 1).length;
  const stuck = (st.queued ?? 0) + (st.sending ?? 0);
  const reconciled = await db.query<{ action: string; n: number }>(
    `SELECT e.payload->>'action' AS action, count(*)::int AS n FROM email_events e
       JOIN activities a ON a.id = e.activity_id
      WHERE a.batch_id = $1 AND e.type = 'send_reconciled' GROUP BY 1 ORDER BY 1`,
    [batchId],
  );
  await db.end();

  console.log(
    `  after ${((Date.now() - t0) / 1000).toFixed(1)} s: activities per status ${JSON.stringify(st)}`,
  );
  console.log(
    `  reconciled: ${JSON.stringify(Object.fromEntries(reconciled.rows.map((r) => [r.action, r.n])))}; simulator: ${sim.messages.length} emails, ${[...copies.values()].filter((n) => n > 0).length} distinct recipients`,
  );
  console.log(`  lost ${lost}  duplicated ${duplicated}  stuck ${stuck}   (all must be 0)`);
  console.log(`  the send-worker now running is pid ${pid} (started by this script, detached)`);
  process.exit(lost || duplicated || stuck ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
