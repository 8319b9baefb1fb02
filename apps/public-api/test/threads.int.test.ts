// Real: PostgreSQL (the preset's database), RabbitMQ, Redis and s3rver. The conversation API over reply threads as
// inbound-mail stores them (rows written here the way it writes them), scoped to the key's project.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { putObject, createS3Client } from "@emailsvc/provider";
import {
  bearer,
  makeProject,
  startHarness,
  startS3,
  testEnv,
  type Harness,
  type TestProject,
} from "./helpers";

let h: Harness;
let s3: Awaited<ReturnType<typeof startS3>>;
let p: TestProject;
let other: TestProject;
const ids = { thread: "", activity: "", inbound: "", inline: "" };

async function seedThread(project: TestProject, opts: { campaignId?: string | null; lastAt?: string } = {}) {
  const db = h.deps.db;
  const messageId = randomUUID();
  const activityId = randomUUID();
  await db.pool.query(
    "INSERT INTO email_messages (id, project_id, source, from_email, subject, html, campaign_id) VALUES ($1, $2, 'api', $3, 'Your order', 'h', $4)",
    [messageId, project.projectId, project.sender, opts.campaignId ?? null],
  );
  await db.pool.query(
    `INSERT INTO activities (id, project_id, email_message_id, recipient, status, provider_message_id, message_id, sent_at, campaign_id)
     VALUES ($1, $2, $3, 'ada@example.org', 'delivered', $4, $5, now() - interval '1 hour', $6)`,
    [
      activityId,
      project.projectId,
      messageId,
      `pm-${activityId}`,
      `pm-${activityId}@email.amazonses.com`,
      opts.campaignId ?? null,
    ],
  );
  const threadId = randomUUID();
  await db.pool.query(
    `INSERT INTO inbound_threads (id, project_id, activity_id, email_message_id, campaign_id, outbound_message_id, email_type,
       subject, normalized_subject, participants, message_count, last_message_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'transactional', 'Your order', 'your order', ARRAY['ada@example.org'], 2, $7)`,
    [
      threadId,
      project.projectId,
      activityId,
      messageId,
      opts.campaignId ?? null,
      `<pm-${activityId}@email.amazonses.com>`,
      opts.lastAt ?? new Date().toISOString(),
    ],
  );
  return { threadId, activityId };
}

async function seedReply(
  project: TestProject,
  threadId: string,
  activityId: string,
  at: string,
  raw: { key?: string; inline?: string },
) {
  const id = randomUUID();
  await h.deps.db.pool.query(
    `INSERT INTO inbound_messages (id, project_id, thread_id, activity_id, dedupe_key, ses_message_id, message_id, from_email,
       from_name, "to", recipient, subject, text_body, html_body, reply_text, kind, matched_by, verdicts, forward, raw_key, raw, size, received_at)
     VALUES ($1, $2, $3, $4, $5, 'ses-1', $6, 'ada@example.org', 'Ada', '[{"email":"r-abcd1234@inbound.test","name":null}]',
       'r-abcd1234@inbound.test', 'Re: Your order', 'Thanks!', '<p>Thanks!</p>', 'Thanks!', 'reply', 'token',
       '{"dmarc":"PASS"}', 'queued', $7, $8, 10, $9)`,
    [
      id,
      project.projectId,
      threadId,
      activityId,
      `${id}`,
      `<${id}@example.org>`,
      raw.key ?? null,
      raw.inline ?? null,
      at,
    ],
  );
  return id;
}

beforeAll(async () => {
  s3 = await startS3("inbound-mail");
  h = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint, INBOUND_BUCKET: "inbound-mail" }));
  p = await makeProject(h.deps);
  other = await makeProject(h.deps);
  const t = await seedThread(p);
  ids.thread = t.threadId;
  ids.activity = t.activityId;
  const key = `inbound/${randomUUID()}`;
  const client = createS3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  await putObject(client, {
    bucket: "inbound-mail",
    key,
    body: "From: ada@example.org\r\nSubject: Re: Your order\r\n\r\nThanks!\r\n",
  });
  client.destroy();
  ids.inbound = await seedReply(p, t.threadId, t.activityId, new Date(Date.now() - 60_000).toISOString(), {
    key,
  });
  ids.inline = await seedReply(p, t.threadId, t.activityId, new Date().toISOString(), {
    inline: "From: x@y.z\r\n\r\ninline\r\n",
  });
  await h.deps.db.pool.query(
    "INSERT INTO inbound_attachments (id, project_id, inbound_message_id, position, filename, content_type, size, storage_key) VALUES ($1, $2, $3, 1, 'a.pdf', 'application/pdf', 3, 'attachments/x/a.pdf')",
    [randomUUID(), p.projectId, ids.inbound],
  );
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
});

describe("GET /v1/threads", () => {
  it("lists the key's project's threads, newest first, filtered by activity, campaign and since", async () => {
    const campaign = randomUUID();
    const older = await seedThread(p, { campaignId: campaign, lastAt: "2026-01-01T00:00:00.000Z" });
    const all = await request(h.app).get("/v1/threads").set(bearer(p.liveKey));
    expect(all.status).toBe(200);
    expect(all.body.data.map((t: { id: string }) => t.id)).toEqual([ids.thread, older.threadId]);
    expect(all.body.pagination).toEqual({ page: 1, per_page: 50, total: 2, total_pages: 1 });
    expect(all.body.data[0]).toMatchObject({
      activity_id: ids.activity,
      campaign_id: null,
      outbound_message_id: `<pm-${ids.activity}@email.amazonses.com>`,
      subject: "Your order",
      message_count: 2,
      participants: ["ada@example.org"],
    });
    const byActivity = await request(h.app)
      .get(`/v1/threads?activity_id=${older.activityId}`)
      .set(bearer(p.testKey));
    expect(byActivity.body.data.map((t: { id: string }) => t.id)).toEqual([older.threadId]);
    const byCampaign = await request(h.app).get(`/v1/threads?campaign_id=${campaign}`).set(bearer(p.liveKey));
    expect(byCampaign.body.data.map((t: { id: string }) => t.id)).toEqual([older.threadId]);
    const since = await request(h.app)
      .get("/v1/threads?since=2026-06-01T00:00:00Z&per_page=1")
      .set(bearer(p.liveKey));
    expect(since.body.data.map((t: { id: string }) => t.id)).toEqual([ids.thread]);
    const page2 = await request(h.app).get("/v1/threads?per_page=1&page=2").set(bearer(p.liveKey));
    expect(page2.body.data.map((t: { id: string }) => t.id)).toEqual([older.threadId]);
    const none = await request(h.app).get("/v1/threads").set(bearer(other.liveKey));
    expect(none.body.data).toEqual([]);
  });

  it("answers 400 for a bad filter and 401 without a key", async () => {
    const bad = await request(h.app).get("/v1/threads?activity_id=nope").set(bearer(p.liveKey));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("activity_id");
    expect((await request(h.app).get("/v1/threads")).status).toBe(401);
  });
});

describe("GET /v1/threads/:id", () => {
  it("returns the original send and the replies in order, with attachments", async () => {
    const res = await request(h.app).get(`/v1/threads/${ids.thread}`).set(bearer(p.liveKey));
    expect(res.status).toBe(200);
    expect(res.body.thread.id).toBe(ids.thread);
    expect(res.body.messages.map((m: { direction: string }) => m.direction)).toEqual([
      "outbound",
      "inbound",
      "inbound",
    ]);
    expect(res.body.messages[0]).toMatchObject({
      activity_id: ids.activity,
      message_id: `<pm-${ids.activity}@email.amazonses.com>`,
      to: "ada@example.org",
      subject: "Your order",
    });
    expect(res.body.messages[1]).toMatchObject({
      id: ids.inbound,
      from: { email: "ada@example.org", name: "Ada" },
      reply_text: "Thanks!",
      kind: "reply",
      matched_by: "token",
      attachments: [
        { filename: "a.pdf", content_type: "application/pdf", size: 3, storage_key: "attachments/x/a.pdf" },
      ],
    });
    expect(res.body.messages[2].id).toBe(ids.inline);
  });

  it("is a 404 from another project's key, and for an unknown or malformed id", async () => {
    expect((await request(h.app).get(`/v1/threads/${ids.thread}`).set(bearer(other.liveKey))).status).toBe(
      404,
    );
    expect((await request(h.app).get(`/v1/threads/${randomUUID()}`).set(bearer(p.liveKey))).status).toBe(404);
    expect((await request(h.app).get("/v1/threads/xyz").set(bearer(p.liveKey))).status).toBe(404);
  });
});

describe("a project that scopes its test keys to test data (issue 49)", () => {
  it("shows a test key only test threads; the live key sees all; off by default", async () => {
    const scoped = await makeProject(h.deps);
    const live = await seedThread(scoped);
    const test = await seedThread(scoped);
    await h.deps.db.pool.query("UPDATE inbound_threads SET is_test = true WHERE id = $1", [test.threadId]);
    const ids = async (key: string) =>
      (await request(h.app).get("/v1/threads").set(bearer(key))).body.data
        .map((t: { id: string }) => t.id)
        .sort();
    // off (the spec's reading): a test key reads the project's live replies too
    expect(await ids(scoped.testKey)).toEqual([live.threadId, test.threadId].sort());
    const on = await request(h.internal)
      .patch(`/admin/projects/${scoped.projectId}`)
      .set({ Authorization: "Bearer admin-token-for-tests-0123456789" })
      .send({ test_keys_test_data_only: true });
    expect(on.status).toBe(200);
    expect(on.body.project.test_keys_test_data_only).toBe(true);
    expect(await ids(scoped.testKey)).toEqual([test.threadId]);
    expect(await ids(scoped.liveKey)).toEqual([live.threadId, test.threadId].sort());
    expect(
      (await request(h.app).get(`/v1/threads/${live.threadId}`).set(bearer(scoped.testKey))).status,
    ).toBe(404);
    expect(
      (await request(h.app).get(`/v1/threads/${test.threadId}`).set(bearer(scoped.testKey))).status,
    ).toBe(200);
  });
});

describe("GET /v1/inbound/:id/raw", () => {
  it("serves the MIME from the inbound bucket, or the inline copy, to the key's project only", async () => {
    const res = await request(h.app).get(`/v1/inbound/${ids.inbound}/raw`).set(bearer(p.liveKey));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^message\/rfc822/);
    expect(res.text ?? res.body.toString()).toContain("Subject: Re: Your order");
    const inline = await request(h.app)
      .get(`/v1/inbound/${ids.inline}/raw`)
      .set(bearer(p.liveKey))
      .buffer(true)
      .parse((r, cb) => {
        let data = "";
        r.on("data", (c: Buffer) => (data += c.toString()));
        r.on("end", () => cb(null, data));
      });
    expect(inline.body).toContain("inline");
    expect(
      (await request(h.app).get(`/v1/inbound/${ids.inbound}/raw`).set(bearer(other.liveKey))).status,
    ).toBe(404);
  });
});

describe("GET /admin/inbound (the operator's view of mail no project got)", () => {
  it("lists unmatched replies, and refused or failed notifications", async () => {
    const db = h.deps.db;
    const id = randomUUID();
    await db.pool.query(
      `INSERT INTO inbound_messages (id, dedupe_key, ses_message_id, from_email, recipient, subject, forward, size)
       VALUES ($1, $2, 'ses-u', 'stranger@example.net', 'nobody@inbound.test', 'hello?', 'unmatched', 10)`,
      [id, `-|${id}`],
    );
    await db.pool.query(
      `INSERT INTO inbound_notifications (id, sns_message_id, topic_arn, ses_message_id, action_type, recipients, verdicts, status, error, size)
       VALUES ($1, $2, 'arn', 'ses-big', 'S3', ARRAY['r-abcd1234@inbound.test'], '{}', 'refused', 'Message length exceeds limit set by recipient', 200000)`,
      [randomUUID(), randomUUID()],
    );
    const auth = { Authorization: "Bearer admin-token-for-tests-0123456789" };
    const unmatched = await request(h.internal).get("/admin/inbound").set(auth);
    expect(unmatched.status).toBe(200);
    expect(unmatched.body.messages).toEqual([
      expect.objectContaining({ id, from_email: "stranger@example.net", subject: "hello?" }),
    ]);
    const refused = await request(h.internal).get("/admin/inbound?status=refused").set(auth);
    expect(refused.body.notifications).toEqual([
      expect.objectContaining({
        ses_message_id: "ses-big",
        size: 200000,
        error: "Message length exceeds limit set by recipient",
      }),
    ]);
    expect((await request(h.internal).get("/admin/inbound?status=nope").set(auth)).status).toBe(400);
    expect((await request(h.internal).get("/admin/inbound")).status).toBe(401);
  });
});
