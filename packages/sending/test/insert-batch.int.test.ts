// insertBatch on the real PostgreSQL, in the two shapes its callers store: a /v1/send-batch call (a batches row,
// reply tokens, the transactional lane) and a campaign's cycle (no batch row, no reply tokens, the bulk lane, its
// send requests spread `idsPerMessage` at a time). Also its gates: the idempotency key and the month's quota.
// Real: PostgreSQL. Faked: nothing (no relay runs, so outbox rows stay put).
import { type ProjectId, RoutingKeys } from "@emailsvc/contracts";
import { type Db, MONTHLY_QUOTA, timeOrderedUuid, timeOrderedUuids } from "@emailsvc/db";
import type { TestProject } from "@emailsvc/testing";
import { insertBatch, type NewBatch, usagePeriod } from "../src";
import { countOf, makeProject, openDb, outboxOf, rows, usageOf } from "./fixtures";

const db: Db = openDb();
afterAll(() => db.close());

/** A /v1/send-batch call of `emails`, live, not scheduled. */
function batchOf(p: TestProject<ProjectId>, emails: string[], over: Partial<NewBatch> = {}): NewBatch {
  return {
    projectId: p.projectId,
    batchId: timeOrderedUuid(),
    emailMessageId: timeOrderedUuid(),
    isTest: false,
    emailType: "marketing",
    fromEmail: p.sender,
    fromName: "Shop",
    subject: "Hello {{name}}",
    html: "<p>Hi {{name}}</p>",
    text: null,
    templateId: null,
    total: emails.length,
    schedule: null,
    activityIds: timeOrderedUuids(emails.length),
    emails,
    data: emails.map((e) => ({ name: e.split("@")[0] })),
    lane: "transactional",
    counted: true,
    idempotency: null,
    ...over,
  };
}

describe("insertBatch: a /v1/send-batch call", () => {
  it("stores the batch, its message, one queued activity per recipient with its data and reply token, and the send request", async () => {
    const p = await makeProject(db);
    // total counts the request's recipients; one was left out (suppressed) before the call
    const b = batchOf(p, ["ada@example.com", "bob@example.com", "cy@example.com"], { total: 4 });
    expect(await insertBatch(db, b)).toBe("inserted");

    const [batch] = await rows(db, "SELECT total, queued, status, email_type FROM batches WHERE id = $1", [
      b.batchId,
    ]);
    expect(batch).toEqual({ total: 4, queued: 3, status: "queued", email_type: "marketing" });
    const [msg] = await rows(db, "SELECT source, batch_id, subject FROM email_messages WHERE id = $1", [
      b.emailMessageId,
    ]);
    expect(msg).toEqual({ source: "batch", batch_id: b.batchId, subject: "Hello {{name}}" });

    const acts = await rows<{
      id: string;
      recipient: string;
      data: unknown;
      status: string;
      reply_token: string;
    }>(
      db,
      "SELECT id, recipient, data, status, reply_token FROM activities WHERE batch_id = $1 ORDER BY id",
      [b.batchId],
    );
    expect(acts.map(({ id, recipient, data, status }) => ({ id, recipient, data, status }))).toEqual([
      { id: b.activityIds[0], recipient: "ada@example.com", data: { name: "ada" }, status: "queued" },
      { id: b.activityIds[1], recipient: "bob@example.com", data: { name: "bob" }, status: "queued" },
      { id: b.activityIds[2], recipient: "cy@example.com", data: { name: "cy" }, status: "queued" },
    ]);
    const tokens = await rows<{ token: string; activity_id: string }>(
      db,
      "SELECT token, activity_id FROM reply_tokens WHERE project_id = $1 ORDER BY activity_id",
      [p.projectId],
    );
    expect(tokens).toEqual(acts.map((a) => ({ token: a.reply_token, activity_id: a.id })));
    expect(new Set(tokens.map((t) => t.token)).size).toBe(3);

    const outbox = await outboxOf(db, p.projectId);
    expect(outbox.map((o) => [o.exchange, o.routing_key, o.payload.payload.activityIds])).toEqual([
      ["email.commands", RoutingKeys.emailSendRequested, b.activityIds],
    ]);
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 3, totalSent: 3 });
  });

  it("a test batch is stored and requested but not counted", async () => {
    const p = await makeProject(db);
    expect(
      await insertBatch(db, batchOf(p, ["a@example.com", "b@example.com"], { isTest: true, counted: false })),
    ).toBe("inserted");
    expect(await countOf(db, "activities", p.projectId)).toBe(2);
    expect(await outboxOf(db, p.projectId)).toHaveLength(1);
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 0, totalSent: 0 });
  });

  it("a scheduled batch waits: activities `scheduled`, a scheduled_sends row, no send request yet", async () => {
    const p = await makeProject(db);
    const scheduledFor = new Date(Date.now() + 3_600_000);
    const schedule = {
      id: timeOrderedUuid(),
      scheduledFor,
      timezone: "UTC",
      localTime: "10:00",
      request: { x: 1 },
    };
    const b = batchOf(p, ["a@example.com"], { schedule });
    expect(await insertBatch(db, b)).toBe("inserted");
    const [s] = await rows(db, "SELECT status, batch_id, request FROM scheduled_sends WHERE id = $1", [
      schedule.id,
    ]);
    expect(s).toEqual({ status: "scheduled", batch_id: b.batchId, request: { x: 1 } });
    const [act] = await rows(db, "SELECT status, scheduled_send_id FROM activities WHERE project_id = $1", [
      p.projectId,
    ]);
    expect(act).toEqual({ status: "scheduled", scheduled_send_id: schedule.id });
    expect(await outboxOf(db, p.projectId)).toEqual([]);
    // charged at accept, like an immediate batch (a cancel refunds it)
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 1, totalSent: 1 });
  });

  it("the same Idempotency-Key again is `idempotency_conflict` and writes nothing more", async () => {
    const p = await makeProject(db);
    const idempotency = { key: "batch-1", fingerprint: "fp", status: 200, bodyJson: '{"success":true}' };
    expect(await insertBatch(db, batchOf(p, ["a@example.com"], { idempotency }))).toBe("inserted");
    expect(await insertBatch(db, batchOf(p, ["b@example.com"], { idempotency }))).toBe(
      "idempotency_conflict",
    );
    expect(await countOf(db, "batches", p.projectId)).toBe(1);
    expect(await countOf(db, "activities", p.projectId)).toBe(1);
    expect(await outboxOf(db, p.projectId)).toHaveLength(1);
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 1, totalSent: 1 });
    const [row] = await rows(
      db,
      "SELECT response_status, response_body FROM idempotency_keys WHERE project_id = $1",
      [p.projectId],
    );
    expect(row).toEqual({ response_status: 200, response_body: { success: true } });
  });

  it("a batch past the month's quota is `quota_exceeded` and writes nothing", async () => {
    const p = await makeProject(db);
    const period = usagePeriod();
    await db.pool.query("INSERT INTO project_usage (project_id, period, live_sent) VALUES ($1, $2, $3)", [
      p.projectId,
      period,
      MONTHLY_QUOTA - 2,
    ]);
    expect(await insertBatch(db, batchOf(p, ["a@example.com", "b@example.com", "c@example.com"]))).toBe(
      "quota_exceeded",
    );
    expect(await countOf(db, "batches", p.projectId)).toBe(0);
    expect(await countOf(db, "activities", p.projectId)).toBe(0);
    expect(await outboxOf(db, p.projectId)).toEqual([]);
    expect(await usageOf(db, p.projectId, period)).toEqual({ liveSent: MONTHLY_QUOTA - 2, totalSent: 0 });
    // A test batch is not counted, so the full quota does not stop it.
    expect(await insertBatch(db, batchOf(p, ["t@example.com"], { isTest: true, counted: false }))).toBe(
      "inserted",
    );
  });
});

describe("insertBatch: a campaign's cycle (bulk lane)", () => {
  it("stores no batch row and no reply tokens, and spreads its bulk send requests idsPerMessage at a time", async () => {
    const p = await makeProject(db);
    const campaignId = timeOrderedUuid();
    const emails = ["r1@example.com", "r2@example.com", "r3@example.com", "r4@example.com", "r5@example.com"];
    const b = batchOf(p, emails, {
      batchId: null,
      source: "campaign",
      campaignId,
      headers: { "Reply-To": "Shop <owner@example.com>" },
      replyTokens: false,
      lane: "bulk",
      requests: { idsPerMessage: 2, causationId: campaignId },
    });
    expect(await insertBatch(db, b)).toBe("inserted");

    expect(await countOf(db, "batches", p.projectId)).toBe(0);
    expect(await countOf(db, "reply_tokens", p.projectId)).toBe(0);
    const [msg] = await rows(
      db,
      "SELECT source, campaign_id, batch_id, headers FROM email_messages WHERE id = $1",
      [b.emailMessageId],
    );
    expect(msg).toEqual({
      source: "campaign",
      campaign_id: campaignId,
      batch_id: null,
      headers: { "Reply-To": "Shop <owner@example.com>" },
    });
    const acts = await rows<{ id: string; campaign_id: string; reply_token: string | null }>(
      db,
      "SELECT id, campaign_id, reply_token FROM activities WHERE project_id = $1 ORDER BY id",
      [p.projectId],
    );
    expect(acts).toEqual(b.activityIds.map((id) => ({ id, campaign_id: campaignId, reply_token: null })));

    const outbox = await outboxOf(db, p.projectId);
    expect(outbox.map((o) => o.routing_key)).toEqual(Array(3).fill(RoutingKeys.emailBulkSendRequested));
    expect(outbox.map((o) => o.payload.payload.activityIds).sort()).toEqual(
      [b.activityIds.slice(0, 2), b.activityIds.slice(2, 4), b.activityIds.slice(4)].sort(),
    );
    expect(outbox.map((o) => (o.payload as { causationId?: string }).causationId)).toEqual(
      Array(3).fill(campaignId),
    );
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 5, totalSent: 5 });
  });

  it("counts the campaign's sends in the month of its cycle (`at`)", async () => {
    const p = await makeProject(db);
    const at = new Date(Date.UTC(2031, 0, 31, 23, 59));
    expect(
      await insertBatch(
        db,
        batchOf(p, ["a@example.com"], {
          batchId: null,
          source: "campaign",
          replyTokens: false,
          lane: "bulk",
          at,
        }),
      ),
    ).toBe("inserted");
    expect(await usageOf(db, p.projectId, "2031-01")).toEqual({ liveSent: 1, totalSent: 1 });
    expect(await usageOf(db, p.projectId, usagePeriod())).toEqual({ liveSent: 0, totalSent: 1 });
  });
});
