/**
 * A message sent over SMTP with a test key is a test send all the way to its webhooks. Real: PostgreSQL,
 * RabbitMQ, s3rver, the relay in-process, and as child processes (their own main.ts) the provider simulator,
 * send-worker and webhook-dispatcher: the relay's send request is sent by send-worker through the simulator, and
 * its `email.sent` event reaches a local receiver through webhook-dispatcher. No notification-ingest runs: the
 * `email.sent` webhook is enough to see where the events of a send go.
 */
import { randomUUID } from "node:crypto";
import { freePort } from "@emailsvc/testing";
import {
  activitiesFrom,
  ENCRYPTION_KEY,
  spawnChild,
  startReceiver,
  startStack,
  type Stack,
  waitFor,
} from "./harness";

let stack: Stack;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const children: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  stack = await startStack();
  receiver = await startReceiver();
  const [simPort, swPort, wdPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const simUrl = `http://127.0.0.1:${simPort}`;
  const env = {
    ...stack.env,
    REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
    API_KEY_ENCRYPTION_KEY: ENCRYPTION_KEY,
    TRACKING_SECRET: "smtp-relay-tracking-secret-0123456789",
    SES_ENDPOINT: simUrl,
    SNS_ENDPOINT: simUrl,
    SEND_RATE_PER_SECOND: "0",
    WEBHOOK_URL_ALLOW_PRIVATE: "true",
    WEBHOOK_URL_CACHE_MS: "0",
    WEBHOOK_RETRY_DELAYS_MS: "200,400,800,1600",
  };
  const started = await Promise.allSettled([
    spawnChild(
      "provider-simulator",
      "tools/provider-simulator/src/main.ts",
      { SIMULATOR_PORT: String(simPort), SIMULATOR_HOST: "127.0.0.1", LOG_LEVEL: "warn" },
      `${simUrl}/_sim/messages`,
    ),
    spawnChild(
      "send-worker",
      "apps/send-worker/src/main.ts",
      { ...env, PORT: String(swPort) },
      `http://127.0.0.1:${swPort}/readyz`,
    ),
    spawnChild(
      "webhook-dispatcher",
      "apps/webhook-dispatcher/src/main.ts",
      { ...env, PORT: String(wdPort) },
      `http://127.0.0.1:${wdPort}/readyz`,
    ),
  ]);
  for (const r of started) if (r.status === "fulfilled") children.push(r.value);
  const failed = started.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
}, 180_000);

afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await receiver?.close();
  await stack?.close();
});

describe("smtp-relay test mode", () => {
  it("delivers a test key's message's webhooks to webhook_url_dev and none to webhook_url", async () => {
    const project = await stack.makeProject();
    await stack.db.pool.query("UPDATE projects SET webhook_url = $2, webhook_url_dev = $3 WHERE id = $1", [
      project.projectId,
      receiver.url(`/live/${project.projectId}`),
      receiver.url(`/dev/${project.projectId}`),
    ]);
    const info = await stack.transport(project.testKey).sendMail({
      from: project.sender,
      to: "tester@example.com",
      subject: "test mode over SMTP",
      text: "to the dev webhook",
      messageId: `<test-mode-${randomUUID()}@client.example>`,
    });
    const [activity] = await activitiesFrom(stack.db, project);
    expect(info.response).toBe(`250 2.0.0 queued as ${activity!.id}`);
    expect(activity!.is_test).toBe(true);

    const mine = () => receiver.hits.filter((h) => h.path.endsWith(project.projectId));
    const sent = await waitFor(
      () => mine().find((h) => h.body.event === "email.sent"),
      60_000,
      "the email.sent webhook",
      200,
    );
    expect(sent.path).toBe(`/dev/${project.projectId}`);
    // give a wrongly routed delivery the time to arrive: every delivery went to the dev URL, none to the live one
    await new Promise((r) => setTimeout(r, 1_500));
    expect(mine().length).toBeGreaterThan(0);
    expect(mine().filter((h) => h.path.startsWith("/live/"))).toEqual([]);

    // and the same project's live key reaches webhook_url: the receiver would have seen a misrouted delivery
    await stack.transport(project.liveKey).sendMail({
      from: project.sender,
      to: "customer@example.com",
      subject: "live over SMTP",
      text: "to the live webhook",
    });
    const live = await waitFor(
      () => mine().find((h) => h.path.startsWith("/live/") && h.body.event === "email.sent"),
      60_000,
      "the live email.sent webhook",
      200,
    );
    expect(live.path).toBe(`/live/${project.projectId}`);
  }, 90_000);
});
