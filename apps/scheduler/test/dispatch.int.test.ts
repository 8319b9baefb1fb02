import { randomUUID } from "node:crypto";
import { createDb } from "@emailsvc/db";
import { createLogger } from "@emailsvc/observability";
import { dispatchDueSends, settleHandedOffSends } from "../src/scheduled-sends/dispatch-due-sends";
import { startSchedulerLoop } from "../src/scheduled-sends/start-scheduler-loop";

// Real PostgreSQL (the package's own migrated database). The send path after the outbox is tested elsewhere.
const db = createDb(process.env.DATABASE_URL!, { max: 20 });
const logger = createLogger({ service: "scheduler-test", level: "silent" });
afterAll(() => db.close());
beforeEach(async () => {
  await db.pool.query("TRUNCATE outbox_messages, activities, email_messages, scheduled_sends CASCADE");
});

async function scheduleSends(n: number, dueInMs: number, recipientsEach = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const sendId = randomUUID();
    const messageId = randomUUID();
    const at = new Date(Date.now() + dueInMs);
    await db.pool.query(
      `INSERT INTO scheduled_sends (id, status, scheduled_for, timezone, local_time, request) VALUES ($1, 'scheduled', $2, 'UTC', 'x', '{}')`,
      [sendId, at],
    );
    await db.pool.query(
      `INSERT INTO email_messages (id, source, from_email, subject, html) VALUES ($1, 'internal', 'a@b.c', 's', 'h')`,
      [messageId],
    );
    for (let r = 0; r < recipientsEach; r++) {
      await db.pool.query(
        `INSERT INTO activities (id, email_message_id, scheduled_send_id, recipient, status, updated_at) VALUES ($1, $2, $3, $4, 'scheduled', now())`,
        [randomUUID(), messageId, sendId, `r${i}-${r}@example.com`],
      );
    }
    ids.push(sendId);
  }
  return ids;
}

/** A project whose sender a@b.c (what scheduleSends writes) is verified. */
async function projectWithSender(totalSent = 0): Promise<string> {
  const projectId = randomUUID();
  await db.pool.query("INSERT INTO projects (id, name, total_sent) VALUES ($1, 'p', $2)", [
    projectId,
    totalSent,
  ]);
  await db.pool.query(
    `INSERT INTO sender_profiles (id, project_id, sender_name, sender_email, email_verified, active, updated_at)
     VALUES ($1, $2, 'A', 'a@b.c', true, true, now())`,
    [randomUUID(), projectId],
  );
  return projectId;
}

/** Makes a send (scheduleSends writes none) the project's: live or test, accepted at `acceptedAt`. */
async function ownedBy(projectId: string, sendId: string, opts: { live: boolean; acceptedAt?: string }) {
  await db.pool.query(
    "UPDATE scheduled_sends SET project_id = $1, created_at = coalesce($3, created_at) WHERE id = $2",
    [projectId, sendId, opts.acceptedAt ?? null],
  );
  await db.pool.query("UPDATE activities SET project_id = $1, is_test = $3 WHERE scheduled_send_id = $2", [
    projectId,
    sendId,
    !opts.live,
  ]);
}

async function outboxActivityIds(): Promise<string[]> {
  const res = await db.pool.query<{ payload: { payload: { activityIds: string[] } } }>(
    "SELECT payload FROM outbox_messages WHERE routing_key = 'email.send-requested'",
  );
  return res.rows.flatMap((r) => r.payload.payload.activityIds);
}

describe("scheduler dispatch (real PostgreSQL)", () => {
  it("hands only due sends to the send path, once", async () => {
    await scheduleSends(3, -1000);
    await scheduleSends(2, 60_000); // not due yet
    const r = await dispatchDueSends({ db, claimedBy: "t" });
    expect(r).toEqual({ scheduledSends: 3, activities: 3, suppressed: 0, unverifiedSender: 0 });
    expect((await dispatchDueSends({ db, claimedBy: "t" })).scheduledSends).toBe(0);
    expect(await outboxActivityIds()).toHaveLength(3);
    const statuses = await db.pool.query(
      "SELECT status, count(*)::int AS n FROM scheduled_sends GROUP BY status ORDER BY status",
    );
    expect(statuses.rows).toEqual([
      { status: "scheduled", n: 2 },
      { status: "sending", n: 3 },
    ]);
  });

  it("three replicas against 300 due sends hand each one over exactly once", async () => {
    await scheduleSends(300, -1000);
    const loops = ["a", "b", "c"].map((name) =>
      startSchedulerLoop({ db, logger, claimedBy: name, intervalMs: 60_000 }),
    );
    await Promise.all(loops.map((l) => l.tick()));
    await Promise.all(loops.map((l) => l.stop()));
    const ids = await outboxActivityIds();
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    const claimedBy = await db.pool.query(
      "SELECT claimed_by, count(*)::int AS n FROM scheduled_sends GROUP BY claimed_by",
    );
    expect(claimedBy.rows.reduce((s, r) => s + r.n, 0)).toBe(300);
    const queued = await db.pool.query("SELECT count(*)::int AS n FROM activities WHERE status = 'queued'");
    expect(queued.rows[0].n).toBe(300);
  });

  it("a recipient suppressed since the send was accepted is cancelled at hand-over and given back to the quota", async () => {
    const projectId = await projectWithSender(3);
    const [sendId] = await scheduleSends(1, -1000, 3);
    await ownedBy(projectId, sendId!, { live: true, acceptedAt: "2026-10-31T23:59:00Z" });
    // counted in October, when it was accepted
    await db.pool.query(
      "INSERT INTO project_usage (project_id, period, live_sent) VALUES ($1, '2026-10', 3)",
      [projectId],
    );
    await db.pool.query(
      "INSERT INTO suppressions (id, project_id, email, reason) VALUES ($1, $2, 'r0-1@example.com', 'bounce')",
      [randomUUID(), projectId],
    );
    const r = await dispatchDueSends({ db, claimedBy: "t" });
    expect(r).toEqual({ scheduledSends: 1, activities: 2, suppressed: 1, unverifiedSender: 0 });
    const acts = await db.pool.query(
      "SELECT recipient, status, failure_reason FROM activities WHERE scheduled_send_id = $1 ORDER BY recipient",
      [sendId],
    );
    expect(acts.rows).toEqual([
      { recipient: "r0-0@example.com", status: "queued", failure_reason: null },
      { recipient: "r0-1@example.com", status: "cancelled", failure_reason: "recipient suppressed: bounce" },
      { recipient: "r0-2@example.com", status: "queued", failure_reason: null },
    ]);
    expect((await outboxActivityIds()).length).toBe(2);
    const usage = await db.pool.query(
      "SELECT (SELECT live_sent FROM project_usage WHERE project_id = $1) AS live, total_sent::int AS total FROM projects WHERE id = $1",
      [projectId],
    );
    expect(usage.rows[0]).toEqual({ live: 2, total: 2 });
  });

  it("a send whose every recipient was suppressed ends cancelled, not sent", async () => {
    const projectId = await projectWithSender();
    const [sendId] = await scheduleSends(1, -1000, 2);
    await ownedBy(projectId, sendId!, { live: false });
    for (const email of ["r0-0@example.com", "r0-1@example.com"])
      await db.pool.query(
        "INSERT INTO suppressions (id, project_id, email, reason) VALUES ($1, $2, $3, 'unsubscribed')",
        [randomUUID(), projectId, email],
      );
    expect(await dispatchDueSends({ db, claimedBy: "t" })).toEqual({
      scheduledSends: 1,
      activities: 0,
      suppressed: 2,
      unverifiedSender: 0,
    });
    expect(await settleHandedOffSends(db)).toBe(1);
    const s = await db.pool.query("SELECT status, sent_at, cancelled_at FROM scheduled_sends WHERE id = $1", [
      sendId,
    ]);
    expect(s.rows[0]).toMatchObject({ status: "cancelled", sent_at: null, cancelled_at: expect.any(Date) });
  });

  it("a send whose sender is no longer verified is cancelled at hand-over, given back, and ends cancelled", async () => {
    const projectId = await projectWithSender(2);
    const [gone, kept] = await scheduleSends(2, -1000);
    for (const id of [gone!, kept!])
      await ownedBy(projectId, id, { live: true, acceptedAt: "2026-10-31T12:00:00Z" });
    await db.pool.query(
      "INSERT INTO project_usage (project_id, period, live_sent) VALUES ($1, '2026-10', 2)",
      [projectId],
    );
    // the first send's message now comes from an address the project never verified (its domain was deleted)
    await db.pool.query(
      "UPDATE email_messages SET from_email = 'news@deleted.example' WHERE id = (SELECT email_message_id FROM activities WHERE scheduled_send_id = $1)",
      [gone],
    );
    const r = await dispatchDueSends({ db, claimedBy: "t" });
    expect(r).toEqual({ scheduledSends: 2, activities: 1, suppressed: 0, unverifiedSender: 1 });
    const act = await db.pool.query(
      "SELECT status, failure_reason FROM activities WHERE scheduled_send_id = $1",
      [gone],
    );
    expect(act.rows).toEqual([
      { status: "cancelled", failure_reason: "sender no longer verified: news@deleted.example" },
    ]);
    await settleHandedOffSends(db);
    expect(
      (await db.pool.query("SELECT status FROM scheduled_sends WHERE id = $1", [gone])).rows[0].status,
    ).toBe("cancelled");
    const usage = await db.pool.query(
      "SELECT (SELECT live_sent FROM project_usage WHERE project_id = $1) AS live, total_sent::int AS total FROM projects WHERE id = $1",
      [projectId],
    );
    expect(usage.rows[0]).toEqual({ live: 1, total: 1 });
  });

  it("a send where nothing went out (one cancelled, one failed) ends failed, not sent", async () => {
    const projectId = await projectWithSender();
    const [sendId] = await scheduleSends(1, -1000, 2);
    await ownedBy(projectId, sendId!, { live: false });
    await db.pool.query(
      "INSERT INTO suppressions (id, project_id, email, reason) VALUES ($1, $2, 'r0-0@example.com', 'bounce')",
      [randomUUID(), projectId],
    );
    await dispatchDueSends({ db, claimedBy: "t" });
    await db.pool.query(
      "UPDATE activities SET status = 'failed' WHERE scheduled_send_id = $1 AND status = 'queued'",
      [sendId],
    );
    await settleHandedOffSends(db);
    const s = await db.pool.query("SELECT status, sent_at FROM scheduled_sends WHERE id = $1", [sendId]);
    expect(s.rows[0]).toEqual({ status: "failed", sent_at: null });
  });

  it("cc and bcc addresses suppressed since the send was accepted are dropped from its copies", async () => {
    const projectId = await projectWithSender();
    const [sendId] = await scheduleSends(1, -1000);
    await ownedBy(projectId, sendId!, { live: false });
    await db.pool.query(
      `UPDATE email_messages SET project_id = $1, cc = '{Keep@example.com,Gone@example.com}', bcc = '{gone2@example.com}'
        WHERE id = (SELECT email_message_id FROM activities WHERE scheduled_send_id = $2)`,
      [projectId, sendId],
    );
    for (const email of ["gone@example.com", "gone2@example.com"])
      await db.pool.query(
        "INSERT INTO suppressions (id, project_id, email, reason) VALUES ($1, $2, $3, 'bounce')",
        [randomUUID(), projectId, email],
      );
    expect((await dispatchDueSends({ db, claimedBy: "t" })).activities).toBe(1);
    const m = await db.pool.query(
      "SELECT cc, bcc FROM email_messages WHERE id = (SELECT email_message_id FROM activities WHERE scheduled_send_id = $1)",
      [sendId],
    );
    expect(m.rows[0]).toEqual({ cc: ["Keep@example.com"], bcc: [] });
  });

  it("a cancelled send is never handed over", async () => {
    const [id] = await scheduleSends(1, -1000);
    await db.pool.query("UPDATE scheduled_sends SET status = 'cancelled' WHERE id = $1", [id]);
    await db.pool.query("UPDATE activities SET status = 'cancelled' WHERE scheduled_send_id = $1", [id]);
    expect((await dispatchDueSends({ db, claimedBy: "t" })).scheduledSends).toBe(0);
    expect(await outboxActivityIds()).toHaveLength(0);
  });

  it("wakes up for a send due before the next interval", async () => {
    await scheduleSends(1, 1200);
    const loop = startSchedulerLoop({ db, logger, claimedBy: "w", intervalMs: 60_000 });
    await new Promise((r) => setTimeout(r, 2500));
    await loop.stop();
    expect(await outboxActivityIds()).toHaveLength(1);
  });

  it("settles handed-off sends once their activities left the queue", async () => {
    const [id] = await scheduleSends(1, -1000, 2);
    await dispatchDueSends({ db, claimedBy: "t" });
    expect(await settleHandedOffSends(db)).toBe(0);
    await db.pool.query("UPDATE activities SET status = 'sent' WHERE scheduled_send_id = $1", [id]);
    expect(await settleHandedOffSends(db)).toBe(1);
    const row = await db.pool.query("SELECT status, sent_at FROM scheduled_sends WHERE id = $1", [id]);
    expect(row.rows[0].status).toBe("sent");
    expect(row.rows[0].sent_at).not.toBeNull();
  });
});
