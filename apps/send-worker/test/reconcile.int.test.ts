// Real PostgreSQL, RabbitMQ, Redis, s3rver and the provider simulator; the send-worker under test is the real
// service (src/main.ts) in a child process, killed with SIGKILL. Nothing is faked but the moment of the kill,
// which the worker's test hook (SEND_TEST_HOLD_AFTER_CLAIMS) makes deterministic: claims past the first N are
// held forever between the claim and the provider call.
import type { ChildProcess } from "node:child_process";
import { spawnTs } from "@emailsvc/testing";
import path from "node:path";
import { Exchanges, makeEnvelope, RoutingKeys } from "@emailsvc/contracts";
import { createLogger, createMetrics } from "@emailsvc/observability";
import { OUTCOME_UNKNOWN, reconcileClaims } from "@emailsvc/db";
import { sendRequests } from "@emailsvc/sending";
import { startReconcileLoop } from "../src/use-cases/start-reconcile-loop";
import { type Harness, insertSend, simMessages, startHarness, waitFor } from "./harness";

/** What the send-worker's loop hands reconcileClaims: the send model's requests. */
const resend = (projectId: Parameters<typeof sendRequests>[1], ids: string[]) =>
  sendRequests("transactional", projectId, ids);

jest.setTimeout(90_000);
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(async () => {
  await fetch(`${h.simUrl}/_sim/reset`, { method: "POST" });
});

const statuses = async (messageId: string) =>
  (
    await h.db.pool.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM activities WHERE email_message_id = $1 GROUP BY status",
      [messageId],
    )
  ).rows.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.status]: r.n }), {});

const reconciledEvents = async (activityIds: string[]) =>
  (
    await h.db.pool.query<{ activity_id: string; action: string }>(
      "SELECT activity_id, payload->>'action' AS action FROM email_events WHERE type = 'send_reconciled' AND activity_id = ANY($1)",
      [activityIds],
    )
  ).rows;

const ledger = async (activityIds: string[]) =>
  (
    await h.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM send_claims WHERE activity_id = ANY($1)",
      [activityIds],
    )
  ).rows[0]!.n;

/** A claim made `ageMs` ago by a worker that then died: what the claim statement leaves behind. */
async function claimAndDie(ids: string[], ageMs: number) {
  expect(await Promise.all(ids.map((id) => h.deps.statements.claim(id)))).toEqual(ids.map(() => true));
  const age = `${ageMs} milliseconds`;
  await h.db.pool.query(
    "UPDATE activities SET claimed_at = now() - $2::interval WHERE id = ANY($1::uuid[])",
    [ids, age],
  );
  await h.db.pool.query(
    "UPDATE send_claims SET claimed_at = now() - $2::interval WHERE activity_id = ANY($1::uuid[])",
    [ids, age],
  );
}

function startWorker(port: number, env: Record<string, string>): ChildProcess {
  // node itself with tsx as a loader (the tsx CLI would run the service in a grandchild that SIGKILL misses)
  return spawnTs(path.join(__dirname, "../src/main.ts"), {
    env: {
      ...process.env,
      NODE_ENV: "test",
      LOG_LEVEL: "warn",
      PORT: String(port),
      HOST: "127.0.0.1",
      SES_ENDPOINT: h.simUrl,
      S3_ENDPOINT: h.s3Endpoint,
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      TRACKING_SECRET: "t".repeat(32),
      SEND_RATE_PER_SECOND: "0",
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

describe("reconciliation of sends claimed and never answered", () => {
  it("a send-worker killed between claim and provider call: after the window every email is sent exactly once", async () => {
    const recipients = Array.from({ length: 8 }, (_, i) => `kill${i}@example.com`);
    const s = await insertSend(h, { recipients });
    const portA = 31_000 + Math.floor(Math.random() * 2000);
    // A: three claims go to the provider, the other five are held after their claim; its own window is long.
    const a = startWorker(portA, { SEND_TEST_HOLD_AFTER_CLAIMS: "3", SEND_RECONCILE_AFTER_MS: "600000" });
    let b: ChildProcess | undefined;
    try {
      await h.broker.publish(
        Exchanges.emailCommands,
        RoutingKeys.emailSendRequested,
        makeEnvelope(
          RoutingKeys.emailSendRequested,
          { activityIds: s.activityIds },
          { projectId: s.projectId },
        ),
      );
      await waitFor(async () => {
        const st = await statuses(s.messageId);
        return st.sent === 3 && st.sending === 5;
      }, 30_000);
      await kill(a);
      // what issue 30 found: claimed, never sent, nothing left to send them (the redelivery skips a claim)
      expect(await statuses(s.messageId)).toEqual({ sent: 3, sending: 5 });
      expect((await simMessages(h)).length).toBe(3);
      expect(await ledger(s.activityIds)).toBe(5);

      // B: the same service without the hook, the window scaled down to 1.5 s
      const portB = portA + 1;
      const killedAt = Date.now();
      b = startWorker(portB, { SEND_RECONCILE_AFTER_MS: "1500", SEND_RECONCILE_INTERVAL_MS: "200" });
      await waitFor(async () => (await statuses(s.messageId)).sent === 8, 30_000);
      // not before the window: a claim younger than it may still be answered
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(1500);
      await new Promise((r) => setTimeout(r, 1000)); // room for a duplicate to show up
      for (const r of recipients) expect(await simMessages(h, r)).toHaveLength(1);
      const events = await reconciledEvents(s.activityIds);
      expect(events).toHaveLength(5);
      expect(events.every((e) => e.action === "resent")).toBe(true);
      expect(await ledger(s.activityIds)).toBe(0);
      const metrics = await (await fetch(`http://127.0.0.1:${portB}/metrics`)).text();
      // at least these five (dead claims other tests left in this database are re-sent by B too)
      const resent = /^send_reconciled_total\{action="resent"[^}]*\} (\d+)$/m.exec(metrics);
      expect(Number(resent?.[1])).toBeGreaterThanOrEqual(5);
    } finally {
      await kill(a);
      if (b) await kill(b);
    }
  });

  it("a project that chose at-most-once gets email.failed with reason outcome_unknown, and nothing is sent", async () => {
    const s = await insertSend(h, { recipients: ["once1@example.com", "once2@example.com"] });
    await h.db.pool.query("UPDATE projects SET on_send_unknown = 'fail' WHERE id = $1", [s.projectId]);
    await claimAndDie(s.activityIds, 5_000);
    const metrics = createMetrics("send-worker-test");
    const loop = startReconcileLoop({
      db: h.db,
      logger: createLogger({ service: "t", level: "silent" }),
      metrics,
      afterMs: 1_000,
      intervalMs: 60_000,
    });
    try {
      // other tests' dead claims may be settled too: only this project's are looked at below
      expect(await loop.tick()).toBeGreaterThanOrEqual(2);
    } finally {
      await loop.stop();
    }
    const rows = await h.db.pool.query(
      "SELECT status, failure_reason, provider_message_id FROM activities WHERE id = ANY($1)",
      [s.activityIds],
    );
    expect(rows.rows).toEqual([
      { status: "failed", failure_reason: OUTCOME_UNKNOWN, provider_message_id: null },
      { status: "failed", failure_reason: OUTCOME_UNKNOWN, provider_message_id: null },
    ]);
    const outbox = await h.db.pool.query<{
      routing_key: string;
      payload: { payload: Record<string, unknown> };
    }>(
      `SELECT routing_key, payload FROM outbox_messages
        WHERE payload->'payload'->>'activityId' = ANY($1) OR payload->'payload'->'activityIds' ?| $1`,
      [s.activityIds],
    );
    expect(outbox.rows.map((r) => r.routing_key)).toEqual(["email.failed", "email.failed"]);
    for (const r of outbox.rows)
      expect(r.payload.payload).toMatchObject({ projectId: s.projectId, reason: "outcome_unknown" });
    expect((await reconciledEvents(s.activityIds)).map((e) => e.action)).toEqual(["failed", "failed"]);
    expect(await simMessages(h)).toHaveLength(0);
    expect(await metrics.registry.getSingleMetricAsString("send_reconciled_total")).toMatch(
      /action="failed"[^}]*\} 2/,
    );
  });

  it("leaves a claim younger than the window, and one that SES did accept, and re-sends the rest once", async () => {
    const s = await insertSend(h, {
      recipients: ["young@example.com", "accepted@example.com", "settled@example.com", "lost@example.com"],
    });
    const [young, accepted, settled, lost] = s.activityIds as [string, string, string, string];
    await claimAndDie([young], 100);
    await claimAndDie([accepted, settled, lost], 5_000);
    // SES's Send notification as notification-ingest records it: a `sent` event, or the activity settled
    await h.db.pool.query(
      `INSERT INTO email_events (id, project_id, activity_id, type, occurred_at) VALUES (gen_random_uuid(), $1, $2, 'sent', now())`,
      [s.projectId, accepted],
    );
    await h.db.pool.query("UPDATE activities SET status = 'sent', provider_message_id = $2 WHERE id = $1", [
      settled,
      `ses-${settled}`,
    ]);
    const opts = { afterMs: 2_000, limit: 500, resend };
    // two replicas at once: SKIP LOCKED, each claim settled by one of them
    const [r1, r2] = await Promise.all([reconcileClaims(h.db, opts), reconcileClaims(h.db, opts)]);
    const settledIds = [...r1.settled, ...r2.settled]
      .map((x) => x.activityId)
      .filter((id) => s.activityIds.includes(id));
    expect(settledIds).toEqual([lost]);
    expect(await statuses(s.messageId)).toEqual({ sending: 2, sent: 1, queued: 1 });
    const row = await h.db.pool.query("SELECT status, claimed_at FROM activities WHERE id = $1", [lost]);
    expect(row.rows[0]).toEqual({ status: "queued", claimed_at: null });
    // its re-send request goes through the ordinary path
    const outbox = await h.db.pool.query<{ routing_key: string; payload: { projectId: string } }>(
      "SELECT routing_key, payload FROM outbox_messages WHERE payload->'payload'->'activityIds' ? $1",
      [lost],
    );
    expect(outbox.rows).toHaveLength(1);
    expect(outbox.rows[0]).toMatchObject({
      routing_key: "email.send-requested",
      payload: { projectId: s.projectId, payload: { activityIds: [lost] } },
    });
    expect(await reconciledEvents(s.activityIds)).toEqual([{ activity_id: lost, action: "resent" }]);
    // the young claim keeps its ledger row; the ones that moved on lost theirs
    expect(await ledger([young])).toBe(1);
    expect(await ledger([accepted, settled, lost])).toBe(0);
  });

  it("a synchronous send (its caller was already told 504) is failed, never re-sent; a scheduled one is re-sent", async () => {
    const s = await insertSend(h, { recipients: ["sync@example.com"] });
    await h.db.pool.query("UPDATE email_messages SET source = 'internal' WHERE id = $1", [s.messageId]);
    await claimAndDie(s.activityIds, 5_000);
    // the same source, scheduled: nobody waited for it, so it is sent again
    const later = await insertSend(h, { recipients: ["sync-later@example.com"] });
    await h.db.pool.query("UPDATE email_messages SET source = 'internal' WHERE id = $1", [later.messageId]);
    await h.db.pool.query("UPDATE activities SET scheduled_send_id = gen_random_uuid() WHERE id = $1", [
      later.activityIds[0],
    ]);
    await claimAndDie(later.activityIds, 5_000);
    const r = await reconcileClaims(h.db, { afterMs: 1_000, limit: 500, resend });
    const mine = r.settled.filter((x) => [...s.activityIds, ...later.activityIds].includes(x.activityId));
    expect(mine.map((x) => [x.activityId, x.action])).toEqual(
      expect.arrayContaining([
        [s.activityIds[0], "failed"],
        [later.activityIds[0], "resent"],
      ]),
    );
    expect(mine).toHaveLength(2);
    expect(await statuses(s.messageId)).toEqual({ failed: 1 });
    expect(await statuses(later.messageId)).toEqual({ queued: 1 });
  });
});
