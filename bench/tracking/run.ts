/**
 * bench/tracking (issue: delivery feedback). Against a running `pnpm start`:
 * open pixel and click redirect of notification-ingest under 100 concurrent connections (autocannon, 10 s each),
 * and in the same run a bare node:http server answering the same GIF, measured right before and right after the
 * pixel (the ratio uses their mean: this machine's speed drifts within minutes). Also checks that repeat hits cost no extra
 * write to the activity row (its updated_at does not move after the first hit).
 * Every hit is an event (email.opened / email.clicked), and a webhook when the project has a URL: with the demo
 * project's URLs pointing at a local receiver (`--webhook up`, the default: the case users run, issue 28) it also
 * prints how many of the run's events reached the receiver and how long after the last hit the last one did, and
 * CPU ms per hit per process. `--webhook off`: no URLs; `down`: a closed port.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development tracking/run.ts [--webhook up|down|off]
 */
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { Client } from "pg";
import { clickUrl } from "@emailsvc/content";
import { cpuBetween, snapshot, stackGroups } from "../lib/proc-cpu";
import { useWebhookReceiver, webhookModeArg } from "../lib/webhook-receiver";
import { DATABASE_URL, PORT_OFFSET, demo, stackSecrets } from "../lib/stack";

const d = demo();
/** A bare node:http server answering the same GIF with the same headers; prints its port. */
const BARE_SERVER = `
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const server = require("node:http").createServer((_req, res) => {
  res.writeHead(200, {
    "Content-Type": "image/gif",
    "Content-Length": GIF.length,
    "Cache-Control": "no-store, no-cache, must-revalidate, max-age=0",
    Pragma: "no-cache",
    Expires: "0",
  });
  res.end(GIF);
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
const secret = stackSecrets().TRACKING_SECRET!;
const INGEST = `http://127.0.0.1:${3006 + PORT_OFFSET}`;

function run(url: string, duration = 10): Promise<autocannon.Result> {
  return autocannon({ url, connections: 100, duration, pipelining: 1 });
}

async function main() {
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  const a = (
    await db.query<{ id: string }>(
      "SELECT id FROM activities WHERE project_id = $1 AND status IN ('sent','delivered','opened','clicked') ORDER BY created_at DESC LIMIT 1",
      [d.project_id],
    )
  ).rows[0];
  if (!a) throw new Error("send one email first (see the README curl) so there is an activity to track");

  // The bare server runs in its own process, as notification-ingest does: in this one it would share an event
  // loop with the load generator and be slowed by it.
  const bare = spawn(process.execPath, ["-e", BARE_SERVER], { stdio: ["ignore", "pipe", "inherit"] });
  const barePort = await new Promise<number>((resolve, reject) => {
    bare.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
    bare.once("exit", (code) => reject(new Error(`bare server exited with ${code}`)));
  });

  // Warm-up, not measured: the bare server is a fresh process whose first seconds run unoptimised code
  // (its first 10 s measured 14–18k req/s and the next 19–24k on the same machine).
  await run(`http://127.0.0.1:${barePort}/t/o/x`, 3);
  const rawRes = await run(`http://127.0.0.1:${barePort}/t/o/x`);
  // The first open and the first click write the activity row; every hit after them must not.
  await fetch(`${INGEST}/t/o/${a.id}`);
  await fetch(clickUrl(INGEST, secret, a.id, "https://example.com/landing?x=1"), {
    redirect: "manual",
  });
  await new Promise((r) => setTimeout(r, 500));
  const before = (await db.query("SELECT updated_at FROM activities WHERE id = $1", [a.id])).rows[0]
    .updated_at as Date;
  const hooks = await useWebhookReceiver(d, webhookModeArg("up"));
  const groups = stackGroups(PORT_OFFSET);
  const startedAt = new Date();
  const cpuBefore = snapshot(groups);
  const pixel = await run(`${INGEST}/t/o/${a.id}`);
  const cpuPixel = cpuBetween(cpuBefore, snapshot(groups));
  const rawAfter = await run(`http://127.0.0.1:${barePort}/t/o/x`);
  const cpuClickBefore = snapshot(groups);
  const click = await run(clickUrl(INGEST, secret, a.id, "https://example.com/landing?x=1"));
  const cpuClick = cpuBetween(cpuClickBefore, snapshot(groups));
  const lastHit = performance.now();
  await new Promise((r) => setTimeout(r, 2000));
  const after = (await db.query("SELECT updated_at FROM activities WHERE id = $1", [a.id])).rows[0]
    .updated_at as Date;
  // the run's events, and (receiver up) the webhooks they became: waited for until none arrived for 10 s
  const events = (
    await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM email_events WHERE activity_id = $1 AND created_at >= $2",
      [a.id, startedAt],
    )
  ).rows[0]!.n;
  if (hooks.mode === "up") await hooks.waitFor(0, events, 600_000, 10_000);
  const lastHook = hooks.lastAt() ?? lastHit;
  await hooks.restore();
  bare.kill();
  await db.end();

  const line = (name: string, r: autocannon.Result) =>
    `  ${name.padEnd(28)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p99 ${r.latency.p99} ms   errors ${r.errors + r.non2xx - (name.startsWith("click") ? (r["3xx"] ?? 0) : 0)}`;
  console.log("tracking: 100 concurrent connections, 10 s each");
  console.log(line("bare node:http GIF (before)", rawRes));
  console.log(line("bare node:http GIF (after)", rawAfter));
  console.log(line("open pixel /t/o/:id", pixel));
  console.log(line("click redirect /t/c/:id", click));
  console.log(
    `  pixel = ${((pixel.requests.average / ((rawRes.requests.average + rawAfter.requests.average) / 2)) * 100).toFixed(0)}% of the bare server's mean (goal ≥ 50%, p99 < 20 ms)`,
  );
  const perHit = (cpu: Map<string, number>, hits: number) =>
    [...cpu]
      .filter(([, ms]) => ms / hits >= 0.001)
      .map(([name, ms]) => `${name} ${(ms / hits).toFixed(3)}`)
      .join(", ");
  console.log(`  CPU ms per pixel hit (during its 10 s): ${perHit(cpuPixel, pixel.requests.total)}`);
  console.log(`  CPU ms per click (during its 10 s): ${perHit(cpuClick, click.requests.total)}`);
  if (hooks.mode === "up")
    console.log(
      `  webhooks received: ${hooks.hits()} of the run's ${events} events, the last ${((lastHook - lastHit) / 1000).toFixed(0)} s after the last hit`,
    );
  else console.log(`  webhook receiver ${hooks.mode} (${events} events recorded)`);
  console.log(
    `  activity row written by repeat hits: ${before.getTime() === after.getTime() ? "no" : "YES"} (goal: no)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
