// POST /_sim/subscribe (issue 43 item 5): a signed SNS SubscriptionConfirmation to the real inbound-mail and
// notification-ingest receivers, each a child process on this package's PostgreSQL database and RabbitMQ vhost,
// configured as the dev stack and the tests configure them (the simulator's certificate host trusted explicitly).
// Real: both receivers, the simulator, PostgreSQL, RabbitMQ, Redis. Faked: nothing.
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort, spawnTs, waitFor } from "@emailsvc/testing";
import { startSimulator } from "./helpers";

const root = path.resolve(__dirname, "../../..");
const sim = startSimulator();
const children: { name: string; proc: ChildProcess; output: () => string }[] = [];
let simUrl = "";

async function startReceiver(name: "inbound-mail" | "notification-ingest", env: Record<string, string>) {
  const port = await freePort();
  let out = "";
  const proc = spawnTs(`apps/${name}/src/main.ts`, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "test",
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: process.env.DATABASE_URL!,
      RABBITMQ_URL: process.env.RABBITMQ_URL!,
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379/0",
      API_KEY_ENCRYPTION_KEY: "ab".repeat(32),
      TRACKING_SECRET: "tracking-secret-for-tests-0123456789",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      SES_ENDPOINT: simUrl,
      S3_ENDPOINT: simUrl,
      INBOUND_DOMAIN: "inbound.example.test",
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      // the explicit widening of the dev stack and the tests: the simulator's certificate (and so its SubscribeURL)
      SNS_CERT_HOST_PATTERN: "^127\\.0\\.0\\.1$",
      SNS_ALLOW_HTTP_CERT_URLS: "true",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  children.push({ name, proc, output: () => out });
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`${name} exited:\n${out}`);
      return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok;
    },
    120_000,
    `${name} ready`,
    250,
  );
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  simUrl = await sim.start();
  const [inbound, ingest] = await Promise.all([
    startReceiver("inbound-mail", {
      INBOUND_SNS_TOPIC_ARNS: "arn:aws:sns:us-east-1:000000000000:ses-inbound",
    }),
    startReceiver("notification-ingest", {
      SNS_TOPIC_ARNS: "arn:aws:sns:us-east-1:000000000000:ses-notifications",
    }),
  ]);
  const config = await fetch(`${simUrl}/_sim/config`, {
    method: "POST",
    body: JSON.stringify({
      inboundNotificationUrl: `${inbound}/api/inbound/provider`,
      notificationUrl: `${ingest}/webhooks/provider`,
    }),
  });
  expect(config.status).toBe(200);
}, 180_000);

afterAll(async () => {
  for (const c of children) {
    c.proc.kill("SIGTERM");
    await new Promise((r) => (c.proc.exitCode !== null ? r(null) : c.proc.once("exit", r)));
  }
  await sim.stop();
}, 60_000);

const subscribe = async (target: string) => {
  const res = await fetch(`${simUrl}/_sim/subscribe?target=${target}`, { method: "POST" });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("POST /_sim/subscribe: the receivers confirm a subscription automatically (spec 4.9)", () => {
  it.each([
    ["inbound", "/api/inbound/provider", "arn:aws:sns:us-east-1:000000000000:ses-inbound"],
    ["provider", "/webhooks/provider", "arn:aws:sns:us-east-1:000000000000:ses-notifications"],
  ])(
    "%s: the receiver answers 200 after visiting the SubscribeURL",
    async (target, receiverPath, topicArn) => {
      const r = await subscribe(target);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        target,
        url: expect.stringContaining(receiverPath),
        topicArn,
        subscribeUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/_sim\/confirm-subscription\?/),
        answer: { status: 200, body: JSON.stringify({ success: true, message: "Subscription confirmed" }) },
        confirmed: true,
        confirmedAt: expect.any(String),
        subscriptionArn: expect.stringMatching(new RegExp(`^${topicArn}:`)),
      });
      const { subscriptions } = (await (await fetch(`${simUrl}/_sim/subscriptions`)).json()) as {
        subscriptions: { token: string; confirmedAt: string | null }[];
      };
      expect(subscriptions.find((s) => s.token === r.body.token)?.confirmedAt).toBe(r.body.confirmedAt);
    },
  );

  it("a target that is neither, or has no URL, is refused; an unknown token is not confirmed", async () => {
    expect((await subscribe("other")).status).toBe(400);
    const unknown = await fetch(`${simUrl}/_sim/confirm-subscription?Token=nope`);
    expect(unknown.status).toBe(404);
    await fetch(`${simUrl}/_sim/config`, { method: "POST", body: JSON.stringify({ notificationUrl: null }) });
    expect(await subscribe("provider")).toEqual({
      status: 409,
      body: { error: "no notificationUrl configured" },
    });
  });
});
