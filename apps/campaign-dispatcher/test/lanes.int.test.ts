// Two lanes, one provider rate (ARCHITECTURE.md, issue 24): while a large campaign saturates the global rate
// (16/s, the default), a /v1/send-email still reaches the provider within 2 s, the provider never sees more than
// the rate in a second, and the campaign's backlog stays bounded (what the rate drains in 15 s).
import { sleep, waitFor } from "@emailsvc/testing";
import { campaignProject, seedLeads, show, type Stack, startStack, type TestProject } from "./stack";

jest.setTimeout(180_000);

let stack: Stack;
let p: TestProject;

beforeAll(async () => {
  // info: the worker's "send will be retried" lines explain a slow probe in the failure message
  stack = await startStack({ env: { SEND_RATE_PER_SECOND: "16", LOG_LEVEL: "info" } });
  p = await campaignProject(stack);
});
afterAll(async () => {
  await stack?.close();
});

it("a transactional send made while a campaign saturates the rate reaches the provider within 2 s", async () => {
  await seedLeads(stack, p.projectId, 5000, { prefix: "bulk", tag: "bulk" });
  const created = await stack.admin("POST", `/projects/${p.projectId}/campaigns`, {
    name: "saturating",
    subject: "Hi",
    html: "<p>Hi {{first_name}}</p>",
    sender_email: p.sender,
    audience: { tags: ["bulk"] },
  });
  const id = created.body.campaign.id as string;
  // saturated: the dispatcher has filled the in-flight bound and the worker sends at the rate
  await waitFor(
    async () => (await show(stack, p.projectId, id)).stats.sent >= 48,
    60_000,
    "campaign sending",
    200,
  );

  const maxInFlight = 16 * 15;
  const latencies: number[] = [];
  const from = Date.now();
  for (let i = 0; i < 6; i++) {
    const to = `tx-${i}@example.org`;
    const t0 = Date.now();
    const res = await fetch(`${stack.apiUrl}/v1/send-email`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.liveKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        recipient_email: to,
        sender_email: p.sender,
        subject: "Your code",
        html_body: "<p>1234</p>",
      }),
    });
    expect(res.status).toBe(200);
    const received = await waitFor(
      async () => {
        const r = await fetch(`${stack.simUrl}/_sim/messages?to=${to}`);
        const [m] = ((await r.json()) as { messages: { receivedAtMs: number }[] }).messages;
        return m?.receivedAtMs;
      },
      10_000,
      `${to} at the provider`,
      20,
    );
    latencies.push(received - t0);
    // the campaign's backlog stays bounded meanwhile
    const c = await show(stack, p.projectId, id);
    expect(c.stats.queued).toBeLessThanOrEqual(maxInFlight);
    expect(c.status).toBe("processing");
    await sleep(500);
  }
  const until = Date.now();
  const retried = stack.worker
    .output()
    .split("\n")
    .filter((l) => l.includes("send will be retried") || l.includes("send threw"));
  // Not starved: the typical probe reaches the provider within 2 s, where one queued behind the campaign's
  // backlog (up to 15 s of it) would wait for most of that. The median, not the maximum: on a loaded 2-core CI
  // machine one probe can stall on CPU (six probes at load 50 took 0.3-2.5 s, none retried), and one transient
  // provider error is retried after the queue's 5 s delay, as it should be (each probe's wait above still ends at
  // 10 s). A failure shows the latencies and the worker's retries beside them.
  const sorted = [...latencies].sort((a, b) => a - b);
  const median = (sorted[2]! + sorted[3]!) / 2;
  if (median >= 2000) expect({ latencies, retried }).toEqual({});

  // one rate for both lanes: over the probes' span the provider got at most 16 a second, campaign and
  // transactional sends together (a per-second count is bench/rate-limit's: on a loaded machine a send's trip
  // to the provider can be later than the limiter's 15 ms margin and shift into the next second)
  const res = await fetch(`${stack.simUrl}/_sim/messages?since=${from}`);
  const got = ((await res.json()) as { messages: { receivedAtMs: number }[] }).messages.filter(
    (m) => m.receivedAtMs <= until,
  );
  expect(got.length).toBeLessThanOrEqual(Math.ceil((16 * (until - from)) / 1000) + 16);
  // and the campaign was not starved either: the rate was in use
  expect(got.length).toBeGreaterThan((8 * (until - from)) / 1000);
  await stack.admin("POST", `/projects/${p.projectId}/campaigns/${id}/cancel`);
});
