/**
 * bench/tracking (issue: delivery feedback). Against a running `pnpm start`:
 * open pixel and click redirect of notification-ingest under 100 concurrent connections (autocannon, 10 s each),
 * and in the same run a bare node:http server answering the same GIF, measured right before and right after the
 * pixel (the ratio uses their mean: this machine's speed drifts within minutes). Also checks that repeat hits cost no extra
 * write to the activity row (its updated_at does not move after the first hit).
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development tracking/run.ts
 */
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { Client } from "pg";
import { clickUrl } from "@emailsvc/content";
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
  const pixel = await run(`${INGEST}/t/o/${a.id}`);
  const rawAfter = await run(`http://127.0.0.1:${barePort}/t/o/x`);
  const click = await run(clickUrl(INGEST, secret, a.id, "https://example.com/landing?x=1"));
  await new Promise((r) => setTimeout(r, 2000));
  const after = (await db.query("SELECT updated_at FROM activities WHERE id = $1", [a.id])).rows[0]
    .updated_at as Date;
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
  console.log(
    `  activity row written by repeat hits: ${before.getTime() === after.getTime() ? "no" : "YES"} (goal: no)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
