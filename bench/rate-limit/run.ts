/**
 * bench/rate-limit (issue: sending). Against `pnpm start` with the default SEND_RATE_PER_SECOND=16: two more
 * send-worker replicas are started beside the stack's one (three in all, sharing the Redis limiter), a backlog
 * of 16 × SECONDS emails is queued as one batch, and the simulator's receive times give the achieved rate and the
 * largest count in any sliding 1-second window. Goal: ≥ 98% of the limit, no window above it, no throttling.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development rate-limit/run.ts [--seconds 60]
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { stackIsolation } from "../../tools/dev-stack/src/isolation";
import { PORT_OFFSET, STACK_DIR, demo, numArg, stackSecrets } from "../lib/stack";

const d = demo();
const LIMIT = 16;
const SECONDS = numArg("seconds", 60);
const root = path.resolve(__dirname, "../..");
const secrets = stackSecrets();
// The extra replicas join the stack's own database, vhost and send-rate key (a STACK_STATE_DIR stack has its own):
// on the default ones they would share nothing with the stack's worker, and take another stack's messages.
const isolation = stackIsolation(STACK_DIR, root, process.env);

const sim = (p: string, init?: RequestInit) =>
  fetch(`${d.simulator_url}${p}`, init)
    .then((r) => r.text())
    .then((t) => (t ? JSON.parse(t) : {})) as Promise<Record<string, unknown>>;
const simConfig = (patch: Record<string, unknown>) =>
  sim("/_sim/config", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(patch),
  });

function startWorker(port: number): ChildProcess {
  return spawn(
    process.execPath,
    ["--conditions=development", "--import", "tsx", "apps/send-worker/src/main.ts"],
    {
      cwd: root,
      env: {
        ...process.env,
        ...secrets,
        DATABASE_URL: isolation.databaseUrl,
        RABBITMQ_URL: isolation.rabbitUrl,
        ...(isolation.sendRateKey ? { SEND_RATE_KEY: isolation.sendRateKey } : {}),
        PORT: String(port),
        LOG_LEVEL: "warn",
        SEND_RATE_PER_SECOND: String(LIMIT),
        SES_ENDPOINT: d.simulator_url,
        S3_ENDPOINT: `http://127.0.0.1:${4569 + PORT_OFFSET}`,
        AWS_ACCESS_KEY_ID: "S3RVER",
        AWS_SECRET_ACCESS_KEY: "S3RVER",
        INBOUND_DOMAIN: "inbound.localhost",
        PUBLIC_BASE_URL: d.base_url,
      },
      stdio: "ignore",
    },
  );
}

async function main() {
  const workers = [startWorker(3913), startWorker(3923)];
  try {
    for (const port of [3913, 3923]) {
      for (let i = 0; ; i++) {
        const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (i > 120) throw new Error(`extra send-worker on ${port} did not become ready`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    const saved = await simConfig({});
    await simConfig({ notificationUrl: null, maxSendRate: LIMIT }); // the simulator throttles above the real limit
    await sim("/_sim/reset", { method: "POST" });
    const n = LIMIT * SECONDS;
    const res = await fetch(`${d.base_url}/v1/send-batch`, {
      method: "POST",
      headers: { Authorization: `Bearer ${d.test_key}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        sender: d.sender_email,
        subject: "rate",
        html: "<p>rate</p>",
        recipients: Array.from({ length: n }, (_, i) => ({ email: `success+r${i}@simulator.amazonaws.com` })),
      }),
    });
    // Read the answer whole: left unread, its socket stays paused, and undici asserts when the server later
    // closes that idle connection (the bench died after about 10 s of waiting).
    const answer = await res.text();
    if (res.status !== 200) throw new Error(`send-batch answered ${res.status}: ${answer.slice(0, 200)}`);
    const deadline = Date.now() + (SECONDS * 2 + 60) * 1000;
    while (((await sim("/_sim/messages/count")).count as number) < n && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 1000));
    const msgs = (await sim("/_sim/messages")).messages as { receivedAtMs: number }[];
    const stats = await sim("/_sim/stats");
    await simConfig({
      notificationUrl: saved.notificationUrl ?? null,
      maxSendRate: saved.maxSendRate ?? null,
    });

    const times = msgs.map((m) => m.receivedAtMs).sort((a, b) => a - b);
    let maxWindow = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      maxWindow = Math.max(maxWindow, i - j + 1);
    }
    const rate = (times.length - 1) / ((times[times.length - 1]! - times[0]!) / 1000);
    console.log(`rate-limit: limit ${LIMIT}/s, 3 send-worker replicas, backlog ${n} emails (${SECONDS} s)`);
    console.log(
      `  received ${times.length} of ${n}; achieved ${rate.toFixed(2)}/s = ${((rate / LIMIT) * 100).toFixed(1)}% of the limit (goal ≥ 98%)`,
    );
    console.log(`  largest count in any 1-second window: ${maxWindow} (goal ≤ ${LIMIT})`);
    console.log(`  throttling errors answered by the provider: ${String(stats.throttledCount)} (goal 0)`);
  } finally {
    for (const w of workers) w.kill("SIGTERM");
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
