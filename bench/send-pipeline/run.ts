/**
 * bench/send-pipeline (issue: sending; issue 28: the case users run). Against `SEND_RATE_PER_SECOND=0 pnpm start`
 * (simulator latency 0), with the demo project's webhook_url and webhook_url_dev pointing at a local receiver
 * answering 200 (`--webhook down`: at a closed port; `--webhook off`: none), restored afterwards:
 *   0. warm-up, not measured: 2,000 emails through the pipeline and 2,000 direct SDK calls (`--warmup`), so that
 *      neither figure pays for JIT compilation, first connections and cold caches. With 2,000 the raw figures
 *      measured before and after the pipeline phases agree within about 10%;
 *   1. 5,000 emails through POST /v1/send-email → outbox → RabbitMQ → send-worker → simulator: emails/s end to end
 *      (first request to the simulator holding all 5,000), 50 requests in flight, twice through the gateway
 *      (:8080 + offset) and twice to public-api's own port, in the order gateway, direct, direct, gateway (a stack
 *      still speeds up over its first phases; one phase each favoured whichever path ran second); then the
 *      webhooks of those emails (one email.sent each) reaching the receiver. Each path's figure is its 10,000
 *      emails over its two phases' time;
 *   2. raw baseline in the same run: the same 5,000 SendEmail calls made directly with the SDK, 50 in flight,
 *      before and after the pipeline phases; the ratio uses their mean (this machine's speed drifts);
 *   3. CPU milliseconds per email of each process (public-api, send-worker, PostgreSQL, RabbitMQ,
 *      webhook-dispatcher, notification-ingest, gateway, simulator), read from /proc before and after each phase
 *      (until its webhooks arrived), and the raw phase's CPU per call (simulator and load generator): a figure
 *      that holds still when the machine's speed drifts. PostgreSQL and RabbitMQ are the machine's, shared with
 *      anything else using them: run on a quiet machine;
 *   4. what the gateway adds to one request: 400 sequential sends on the quiet stack, alternately through it and
 *      direct (the first 100 not counted), the difference of the two medians;
 *   5. /v1/send-email latency through the gateway at a steady 100 requests/s for 10 s: p50 / p99, once the stack is
 *      quiet again (the phases before sent, their dead rows vacuumed) and after 2 s at that rate, not counted;
 *   6. the floor (bench/send-floor): the same hops done once each with the bare libraries and nothing of ours, on the
 *      quiet stack's PostgreSQL and RabbitMQ, and how many times the floor our processes use.
 * Run: pnpm --filter @emailsvc/bench exec tsx --conditions=development send-pipeline/run.ts [--n 5000]
 *      [--webhook up|down|off]
 */
import { SendEmailCommand } from "@aws-sdk/client-sesv2";
import { createSesClient } from "@emailsvc/provider";
import { cpuBetween, snapshot, stackGroups, waitForQuiet } from "../lib/proc-cpu";
import { runFloor } from "../lib/send-floor";
import { demo, fmt, numArg, percentile, post } from "../lib/stack";
import { useWebhookReceiver, webhookModeArg } from "../lib/webhook-receiver";

const d = demo();
const N = numArg("n", 5000);
const WARMUP = numArg("warmup", 2000);
// STACK_PORT_OFFSET: a stack started beside another one (`STACK_PORT_OFFSET=320 pnpm start`)
const OFFSET = Number(process.env.STACK_PORT_OFFSET ?? 0);
const API = `http://127.0.0.1:${3001 + OFFSET}`;
const GATEWAY = `http://127.0.0.1:${8080 + OFFSET}`;
const WEBHOOK = webhookModeArg("up");
const groups = stackGroups(OFFSET);

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

function sendOne(i: number, base = GATEWAY): Promise<number> {
  const t = performance.now();
  return post(
    `${base}/v1/send-email`,
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
  const hooks = await useWebhookReceiver(d, WEBHOOK);

  await resetSim();
  await pool(WARMUP, 50, (i) => sendOne(200_000 + i));
  while ((await simCount()) < WARMUP) await new Promise((r) => setTimeout(r, 100));
  await pool(WARMUP, 50, (i) => rawSend(`warm${i}`));

  const rawPhase = async (tag: string) => {
    await resetSim();
    const before = snapshot(groups);
    const self = process.cpuUsage();
    const t = performance.now();
    await pool(N, 50, (i) => rawSend(`${tag}${i}`));
    const rate = N / ((performance.now() - t) / 1000);
    const cpu = cpuBetween(before, snapshot(groups));
    const gen = process.cpuUsage(self);
    return { rate, simMs: (cpu.get("simulator") ?? 0) / N, genMs: (gen.user + gen.system) / 1000 / N };
  };

  const pipelinePhase = async (base: string, offset: number) => {
    await resetSim();
    // wait for the warm-up's (or the previous phase's) webhooks to settle before the CPU snapshot
    const settleUntil = Date.now() + 30_000;
    let last = -1;
    while (hooks.hits() !== last && Date.now() < settleUntil) {
      last = hooks.hits();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const hitsBefore = hooks.hits();
    const before = snapshot(groups);
    const self = process.cpuUsage();
    const t0 = performance.now();
    await pool(N, 50, (i) => sendOne(offset + i, base));
    const accepted = performance.now() - t0;
    while ((await simCount()) < N) await new Promise((r) => setTimeout(r, 100));
    const e2e = performance.now() - t0;
    // then the webhooks of those emails (one email.sent each), up to 60 s
    if (WEBHOOK === "up") await hooks.waitFor(hitsBefore, N, 60_000);
    else await new Promise((r) => setTimeout(r, 5000)); // what a down receiver costs in the next seconds
    const hooked = performance.now() - t0;
    const cpu = cpuBetween(before, snapshot(groups));
    const gen = process.cpuUsage(self);
    return { rate: N / (e2e / 1000), e2e, accepted, hooked, hooks: hooks.hits() - hitsBefore, cpu, gen };
  };

  type Phase = Awaited<ReturnType<typeof pipelinePhase>>;
  /** Two phases of one path as one: emails over their summed time, CPU summed (per email: divided by 2N). */
  const both = (a: Phase, b: Phase) => {
    const cpu = new Map(a.cpu);
    for (const [name, ms] of b.cpu) cpu.set(name, (cpu.get(name) ?? 0) + ms);
    return {
      rate: (2 * N) / ((a.e2e + b.e2e) / 1000),
      rates: [a.rate, b.rate],
      e2e: a.e2e + b.e2e,
      accepted: a.accepted + b.accepted,
      hooked: a.hooked + b.hooked,
      hooks: a.hooks + b.hooks,
      cpu,
      gen: { user: a.gen.user + b.gen.user, system: a.gen.system + b.gen.system },
    };
  };
  const rawBefore = await rawPhase("rawA");
  // gateway, direct, direct, gateway: a stack is faster in its later phases (still warming up after the warm-up,
  // its caches and plans settling), and one phase each made whichever path ran first look 5-25% slower
  const gatewayA = await pipelinePhase(GATEWAY, 0);
  const directA = await pipelinePhase(API, 10_000_000);
  const directB = await pipelinePhase(API, 20_000_000);
  const gatewayB = await pipelinePhase(GATEWAY, 30_000_000);
  const viaGateway = both(gatewayA, gatewayB);
  const direct = both(directA, directB);
  const rawAfter = await rawPhase("rawB");

  // what the gateway adds to one request: sequential sends, alternately through it and direct, once the stack is
  // quiet (alternating cancels the machine's drift); the difference of the two medians
  await waitForQuiet(groups);
  const seq: { gateway: number[]; direct: number[] } = { gateway: [], direct: [] };
  for (let i = 0; i < 400; i++) {
    const viaGw = i % 2 === 0;
    const ms = await sendOne(40_000_000 + i, viaGw ? GATEWAY : API);
    if (i >= 100) (viaGw ? seq.gateway : seq.direct).push(ms);
  }

  // steady 100 requests/s for 10 s, through the gateway, once the stack has finished the phases before (their
  // backlog and the vacuum of their dead rows) and after 2 s at the same rate that are not counted
  const quietAfter = await waitForQuiet(groups);
  const latencies: Promise<number>[] = [];
  let counted = 0;
  const tick = setInterval(() => latencies.push(sendOne(100_000 + latencies.length)), 10);
  setTimeout(() => (counted = latencies.length), 2000);
  await new Promise((r) => setTimeout(r, 12_000));
  clearInterval(tick);
  const lat = (await Promise.all(latencies)).slice(counted);
  await simConfig({ notificationUrl: saved.notificationUrl ?? null });
  await hooks.restore();

  // the floor: the same hops done bare (bench/send-floor), on the now quiet stack's PostgreSQL and RabbitMQ
  await waitForQuiet(groups);
  const [floor] = await runFloor({ n: N, warmup: 500, phases: 1 });

  const rawRate = (rawBefore.rate + rawAfter.rate) / 2;
  /** CPU ms per email of all our processes (all but the simulator; the load generator is counted apart). */
  const oursPerEmail = (p: Phase) =>
    [...p.cpu].filter(([name]) => name !== "simulator").reduce((sum, [, ms]) => sum + ms, 0) / (2 * N);
  console.log(`send-pipeline: ${N} emails, 50 in flight, webhook receiver ${WEBHOOK}`);
  for (const [label, p] of [
    ["through the gateway", viaGateway],
    ["to public-api's port", direct],
  ] as const) {
    console.log(
      `  ${label}: ${p.rate.toFixed(0)} emails/s end to end (${2 * N} emails in two phases of ${p.rates.map((r) => `${r.toFixed(0)}/s`).join(" and ")}; ${(p.e2e / 1000).toFixed(1)} s, all accepted after ${(p.accepted / 1000).toFixed(1)} s), ${((p.rate / rawRate) * 100).toFixed(0)}% of raw; webhooks received ${p.hooks} after ${(p.hooked / 1000).toFixed(1)} s`,
    );
    console.log(
      `    CPU ms per email: ${[...p.cpu].map(([name, ms]) => `${name} ${(ms / (2 * N)).toFixed(3)}`).join(", ")}, load generator ${((p.gen.user + p.gen.system) / 1000 / (2 * N)).toFixed(3)}`,
    );
    console.log(
      `    total of our processes (all but the simulator and the load generator): ${oursPerEmail(p).toFixed(3)} ms per email   (goal < 1.5)`,
    );
  }
  console.log(
    `  raw baseline (SDK → simulator directly): ${rawRate.toFixed(0)} emails/s (mean of ${rawBefore.rate.toFixed(0)} before and ${rawAfter.rate.toFixed(0)} after); CPU ms per call: simulator ${((rawBefore.simMs + rawAfter.simMs) / 2).toFixed(3)}, load generator ${((rawBefore.genMs + rawAfter.genMs) / 2).toFixed(3)}`,
  );
  const floorParts = [...floor!.perEmail]
    .filter(([name]) => name !== "simulator" && !name.startsWith("load"))
    .map(([name, ms]) => `${name} ${ms.toFixed(3)}`);
  console.log(
    `  floor (send-floor: the same hops bare, nothing of ours, on this machine now): ${floor!.ours.toFixed(3)} ms per email ` +
      `(${floorParts.join(", ")}; ${floor!.rate.toFixed(0)} emails/s); our processes through the gateway use ` +
      `${(oursPerEmail(viaGateway) / floor!.ours).toFixed(2)}x the floor`,
  );
  console.log(
    `  gateway / direct: ${((viaGateway.rate / direct.rate) * 100).toFixed(0)}%   (goals: ≥ 400 emails/s and ≥ 40% of raw through the gateway; ≥ 85% of direct)`,
  );
  const gwP50 = percentile(seq.gateway, 50);
  const directP50 = percentile(seq.direct, 50);
  console.log(
    `  one request at a time (${seq.gateway.length} each, alternating, quiet stack): p50 ${fmt(gwP50)} through the gateway, ${fmt(directP50)} direct: the gateway adds ${fmt(gwP50 - directP50)}   (goal < 1 ms)`,
  );
  console.log(
    `  /v1/send-email through the gateway at 100 req/s for 10 s (${lat.length} requests; the stack quiet after ${quietAfter.toFixed(0)} s, then 2 s not counted): p50 ${fmt(percentile(lat, 50))}  p99 ${fmt(percentile(lat, 99))}   (goal p99 < 50 ms)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
