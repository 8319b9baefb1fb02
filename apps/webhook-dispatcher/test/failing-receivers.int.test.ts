/**
 * A receiver that keeps failing: real PostgreSQL (own database) and RabbitMQ (own vhost, real TTL retry and defer
 * queues); the receivers are local HTTP servers, a closed port for one that refuses connections. Time is scaled
 * down: retries 200 / 400 / 800 / 1600 ms, deferrals 200 / 400 ms, probes 150 then 300 ms apart.
 */
import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import { Exchanges, makeEnvelope, type ProjectId } from "@emailsvc/contracts";
import { createDb, createDeliveryWrites, createOutboundLoads, createProject } from "@emailsvc/db";
import { allowAnyAddress } from "@emailsvc/http";
import { createBroker } from "@emailsvc/messaging";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { freePort } from "@emailsvc/testing";
import { eventsConsumer } from "../src/consumers/events.consumer";
import { webhookTopology } from "../src/deps";
import type { DeliverDeps } from "../src/use-cases/deliver-webhook";
import { createFailingReceivers } from "../src/use-cases/failing-receivers";
import { recordReceiverState } from "../src/use-cases/record-receiver-state";
import { createSlowReceiverGate } from "../src/use-cases/slow-receivers";

jest.setTimeout(60_000);
const encKey = randomBytes(32).toString("hex");
const db = createDb(process.env.DATABASE_URL!, { max: 10 });
const lines: { level: string; msg: string; projectId?: string }[] = [];
const logger = createLogger({ service: "wd-failing-test", level: "silent" });
// the state changes are what this test reads from the log
const recLogger = {
  ...logger,
  warn: (o: { projectId?: string }, msg: string) => lines.push({ level: "warn", msg, ...o }),
  info: (o: { projectId?: string }, msg: string) => lines.push({ level: "info", msg, ...o }),
} as unknown as typeof logger;
const metrics = createMetrics("wd-failing-test");
const RETRY = [200, 400, 800, 1600];
const topology = webhookTopology({
  WEBHOOK_RETRY_DELAYS_MS: RETRY,
  WEBHOOK_MAX_ATTEMPTS: 5,
  WEBHOOK_DEFER_MS: [200, 400],
});
const broker = createBroker({ url: process.env.RABBITMQ_URL!, name: "wd-failing-test", topology, logger });
const deps: DeliverDeps = {
  db,
  logger,
  encryptionKey: encKey,
  timeoutMs: 2000,
  maxAttempts: 5,
  allowAddress: allowAnyAddress,
  retryDelaysMs: RETRY,

  // group-committed, as the service runs
  writes: createDeliveryWrites(db),
  loadOutbound: createOutboundLoads(db),
};
const FAIL_AFTER = 3;
const PROBE_MS = [150, 300];
const failing = createFailingReceivers({
  failAfter: FAIL_AFTER,
  probeMs: PROBE_MS,
  onChange: recordReceiverState(db, recLogger, metrics),
});

/** A receiver on `port` answering `status` after `delayMs`; counts hits and the most requests at once. */
async function receiver(port: number, status: number, delayMs = 0) {
  const hits: string[] = [];
  let running = 0;
  let maxRunning = 0;
  const server = http.createServer((req, res) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () =>
      setTimeout(() => {
        hits.push(body);
        running--;
        res.statusCode = status;
        res.end("ok");
      }, delayMs),
    );
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    hits,
    maxRunning: () => maxRunning,
    resetMax: () => (maxRunning = running),
    close: () => {
      server.closeAllConnections(); // the dispatcher's kept-alive sockets
      return new Promise((r) => server.close(r));
    },
  };
}

async function activities(projectId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const messageId = randomUUID();
    const activityId = randomUUID();
    await db.pool.query(
      "INSERT INTO email_messages (id, project_id, source, from_email, subject, html) VALUES ($1, $2, 'api', 'a@b.c', 'Subj', 'h')",
      [messageId, projectId],
    );
    await db.pool.query(
      "INSERT INTO activities (id, project_id, email_message_id, recipient, status, provider_message_id, is_test) VALUES ($1, $2, $3, 'r@example.com', 'delivered', $4, false)",
      [activityId, projectId, messageId, `prov-${activityId}`],
    );
    ids.push(activityId);
  }
  return ids;
}

const publish = (projectId: ProjectId, activityId: string) => {
  const envelope = makeEnvelope(
    "email.delivered",
    { activityId, projectId, isTest: false, occurredAt: "2026-11-25T10:00:00.000Z" },
    { projectId },
  );
  return broker.publish(Exchanges.emailEvents, "email.delivered", envelope).then(() => envelope.id);
};

async function waitFor<T>(fn: () => Promise<T | undefined | false>, ms = 40_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const failingSince = async (projectId: string) =>
  (
    await db.pool.query<{ webhook_failing_since: Date | null }>(
      "SELECT webhook_failing_since FROM projects WHERE id = $1",
      [projectId],
    )
  ).rows[0]!.webhook_failing_since;

/** Each event's delivery (its status and attempt counter) and its logged attempts, once all are final. */
async function finalDeliveries(projectId: string, eventIds: string[]) {
  return waitFor(async () => {
    const { rows } = await db.pool.query<{
      event_id: string;
      status: string;
      attempts: number;
      logged: number;
    }>(
      `SELECT d.event_id, d.status, d.attempts, (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
         FROM webhook_deliveries d WHERE d.project_id = $1`,
      [projectId],
    );
    return rows.length === eventIds.length && rows.every((r) => ["succeeded", "exhausted"].includes(r.status))
      ? rows
      : undefined;
  });
}

/** Attempt times (ms) of a project, in order. */
const attemptTimes = async (projectId: string, since?: Date) =>
  (
    await db.pool.query<{ t: Date }>(
      "SELECT created_at AS t FROM webhook_attempts WHERE project_id = $1 AND created_at >= $2 ORDER BY created_at",
      [projectId, since ?? new Date(0)],
    )
  ).rows.map((r) => r.t.getTime());

let consumer: Awaited<ReturnType<typeof broker.consume>>;
beforeAll(async () => {
  await broker.ready();
  const gate = createSlowReceiverGate({ slowMs: 1000, slowLimit: 5 });
  consumer = await broker.consume(eventsConsumer(deps, gate, failing), {
    prefetch: 20,
  });
});
afterAll(async () => {
  await consumer.close();
  await broker.close();
  await db.close();
});

describe("a failing webhook receiver", () => {
  it("refusing connections: marked failing after 3 attempts, probed one at a time; recovery resumes delivery, nothing lost", async () => {
    const port = await freePort();
    const { project } = await createProject(
      db,
      { name: "down", webhookUrl: `http://127.0.0.1:${port}/hook` },
      encKey,
    );
    const ids = await activities(project.id, 10);
    const eventIds = await Promise.all(ids.map((a) => publish(project.id, a)));

    const since = await waitFor(async () => (await failingSince(project.id)) ?? undefined);
    expect(lines.filter((l) => l.projectId === project.id).map((l) => l.msg)).toEqual([
      "webhook.endpoint_failing",
    ]);
    // failing: only probes, 150 ms after the flip, then 300 ms apart (the attempts that made it failing may log
    // their rows just after the flip); without it, 10 deliveries would each retry every 200-1600 ms
    await new Promise((r) => setTimeout(r, since.getTime() + 1600 - Date.now()));
    const probes = await attemptTimes(project.id, new Date(since.getTime() + 100));
    expect(probes.length).toBeGreaterThanOrEqual(2);
    expect(probes.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < probes.length; i++)
      expect(probes[i]! - probes[i - 1]!).toBeGreaterThanOrEqual(PROBE_MS[0]! - 20);
    expect(await failingSince(project.id)).toEqual(since);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(
      /webhook_endpoint_state_changes_total\{state="failing",service="wd-failing-test"\} [1-9]/,
    );

    // the receiver comes back: the next probe succeeds and every delivery not yet exhausted is delivered
    const up = await receiver(port, 200);
    try {
      const rows = await finalDeliveries(project.id, eventIds);
      expect(rows.map((r) => r.event_id).sort()).toEqual([...eventIds].sort());
      for (const r of rows) {
        expect(r.logged).toBe(r.attempts); // every attempt is in the log
        if (r.status === "exhausted") expect(r.attempts).toBe(5);
        else expect(r.attempts).toBeLessThanOrEqual(5);
      }
      const succeeded = rows.filter((r) => r.status === "succeeded");
      expect(succeeded.length).toBeGreaterThan(0);
      expect(up.hits.length).toBe(succeeded.length);
      expect(await failingSince(project.id)).toBeNull();
      expect(lines.filter((l) => l.projectId === project.id).map((l) => l.msg)).toEqual([
        "webhook.endpoint_failing",
        "webhook.endpoint_recovered",
      ]);
    } finally {
      await up.close();
    }
  });

  it("answering 503 for good: each delivery still gets its five attempts, one at a time once failing, none dropped", async () => {
    const port = await freePort();
    const down = await receiver(port, 503, 30);
    try {
      const { project } = await createProject(
        db,
        { name: "503", webhookUrl: `http://127.0.0.1:${port}/hook` },
        encKey,
      );
      const ids = await activities(project.id, 4);
      const eventIds = await Promise.all(ids.map((a) => publish(project.id, a)));
      const since = await waitFor(async () => (await failingSince(project.id)) ?? undefined);
      down.resetMax();
      const rows = await finalDeliveries(project.id, eventIds);
      expect(rows.map((r) => [r.status, r.attempts, r.logged])).toEqual(
        eventIds.map(() => ["exhausted", 5, 5]),
      );
      expect(down.hits.length).toBe(20);
      expect(down.maxRunning()).toBeLessThanOrEqual(1);
      const after = await attemptTimes(project.id, new Date(since.getTime() + 100));
      for (let i = 1; i < after.length; i++)
        expect(after[i]! - after[i - 1]!).toBeGreaterThanOrEqual(PROBE_MS[0]! - 20);
      expect(await failingSince(project.id)).toEqual(since);
    } finally {
      await down.close();
    }
  });
});
