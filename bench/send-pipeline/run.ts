/**
 * bench/send-pipeline (issue: sending). Against `SEND_RATE_PER_SECOND=0 pnpm start` (simulator latency 0):
 *   0. warm-up, not measured: 2,000 emails through the pipeline and 2,000 direct SDK calls (`--warmup`), so that
 *      neither figure pays for JIT compilation, first connections and cold caches (a fresh stack is cold; the
 *      raw phase used to run after the pipeline phase and so met a simulator the pipeline had already warmed).
 *      500 each was not enough: the raw figure measured before the pipeline phase came out 20-55% below the one
 *      measured after it, in the same run; with 2,000 they agree within about 10%;
 *   1. 5,000 emails through POST /v1/send-email → outbox → RabbitMQ → send-worker → simulator: emails/s end to end
 *      (first request to the simulator holding all 5,000), 50 requests in flight;
 *   2. raw baseline in the same run: the same 5,000 SendEmail calls made directly with the SDK, 50 in flight,
 *      measured once before phase 1 and once after it; the ratio uses their mean, because this machine's speed
 *      drifts (up to 2× within an hour) and a single raw figure taken after the pipeline phase can be measured
 *      at another speed than the pipeline was;
 *   3. /v1/send-email latency at a steady 100 requests/s for 10 s: p50 / p99.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development send-pipeline/run.ts [--n 5000]
 */
import { SendEmailCommand } from "@aws-sdk/client-sesv2";
import { createSesClient } from "@emailsvc/provider";
import { demo, fmt, numArg, percentile, post } from "../lib/stack";

const d = demo();
const N = numArg("n", 5000);
const WARMUP = numArg("warmup", 2000);
// STACK_PORT_OFFSET: a stack started beside another one (`STACK_PORT_OFFSET=320 pnpm start`)
const API = `http://127.0.0.1:${3001 + Number(process.env.STACK_PORT_OFFSET ?? 0)}`;

const simCount = async () =>
  ((await (await fetch(`${d.simulator_url}/_sim/messages/count`)).json()) as { count: number }).count;
const resetSim = () => fetch(`${d.simulator_url}/_sim/reset`, { method: "POST" });

async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

function sendOne(i: number): Promise<number> {
  const t = performance.now();
  return post(
    `${API}/v1/send-email`,
    JSON.stringify({
      recipient_email: `success+p${i}@simulator.amazonaws.com`,
      sender_email: d.sender_email,
      subject: "Pipeline {{i}}",
      html_body: '<p>Hello {{i}} <a href="https://example.com/x">x</a></p>',
      data: { i },
    }),
    { Authorization: `Bearer ${d.test_key}`, "Content-Type": "application/json" },
  ).then((r) => {
    if (r.status !== 200) throw new Error(`send-email answered ${r.status}`);
    return performance.now() - t;
  });
}

const simConfig = async (patch: Record<string, unknown>) =>
  (await (
    await fetch(`${d.simulator_url}/_sim/config`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(patch),
    })
  ).json()) as Record<string, unknown>;

async function main() {
  // The pipeline under test ends at the provider: the simulator's SNS notifications (RSA-signed, and the
  // notification-ingest/webhook work they cause) are switched off for the run so they don't share the 2 cores.
  const saved = await simConfig({});
  await simConfig({ notificationUrl: null, latencyMs: 0, maxSendRate: null });
  const ses = createSesClient({
    region: "us-east-1",
    endpoint: d.simulator_url,
    accessKeyId: "x",
    secretAccessKey: "x",
  });
  const rawSend = (tag: string) =>
    ses.send(
      new SendEmailCommand({
        FromEmailAddress: d.sender_email,
        Destination: { ToAddresses: [`success+${tag}@simulator.amazonaws.com`] },
        Content: { Simple: { Subject: { Data: "raw" }, Body: { Html: { Data: "<p>raw</p>" } } } },
      }),
    );
  await resetSim();
  await pool(WARMUP, 50, (i) => sendOne(200_000 + i));
  while ((await simCount()) < WARMUP) await new Promise((r) => setTimeout(r, 100));
  await pool(WARMUP, 50, (i) => rawSend(`warm${i}`));

  const rawPhase = async (tag: string): Promise<number> => {
    await resetSim();
    const t = performance.now();
    await pool(N, 50, (i) => rawSend(`${tag}${i}`));
    return N / ((performance.now() - t) / 1000);
  };
  const rawBefore = await rawPhase("rawA");

  await resetSim();
  const base = await simCount();
  const t0 = performance.now();
  await pool(N, 50, sendOne);
  const accepted = performance.now() - t0;
  while ((await simCount()) - base < N) await new Promise((r) => setTimeout(r, 100));
  const e2e = performance.now() - t0;

  const rawAfter = await rawPhase("rawB");

  // steady 100 requests/s for 10 s
  const latencies: Promise<number>[] = [];
  const tick = setInterval(() => latencies.push(sendOne(100_000 + latencies.length)), 10);
  await new Promise((r) => setTimeout(r, 10_000));
  clearInterval(tick);
  const lat = await Promise.all(latencies);
  await simConfig({ notificationUrl: saved.notificationUrl ?? null });

  const e2eRate = N / (e2e / 1000);
  const rawRate = (rawBefore + rawAfter) / 2;
  console.log(`send-pipeline: ${N} emails, 50 in flight`);
  console.log(
    `  end to end (API → queue → worker → simulator): ${e2eRate.toFixed(0)} emails/s (${(e2e / 1000).toFixed(1)} s; all accepted after ${(accepted / 1000).toFixed(1)} s)`,
  );
  console.log(
    `  raw baseline (SDK → simulator directly):       ${rawRate.toFixed(0)} emails/s (mean of ${rawBefore.toFixed(0)} before and ${rawAfter.toFixed(0)} after)`,
  );
  console.log(
    `  ratio ${((e2eRate / rawRate) * 100).toFixed(0)}% of raw   (goals: ≥ 400 emails/s and ≥ 40% of raw)`,
  );
  console.log(
    `  /v1/send-email at 100 req/s for 10 s (${lat.length} requests): p50 ${fmt(percentile(lat, 50))}  p99 ${fmt(percentile(lat, 99))}   (goal p99 < 50 ms)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
