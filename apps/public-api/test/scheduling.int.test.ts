// Scheduling on internal POST /send-email (spec 4.5) and the v1 scheduled-send endpoints.
// Real: PostgreSQL, RabbitMQ, Redis, s3rver. Nothing is sent here: the scheduler hands sends over later.
import request from "supertest";
import {
  bearer,
  count,
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

beforeAll(async () => {
  s3 = await startS3();
  h = await startHarness(testEnv({ S3_ENDPOINT: s3.endpoint }));
});
afterAll(async () => {
  await h?.close();
  await s3?.close();
});
beforeEach(async () => {
  p = await makeProject(h.deps);
});

const post = (extra: Record<string, unknown>) =>
  request(h.internal)
    .post("/send-email")
    .set({ "x-project-id": p.projectId })
    .send({ recipient: "ann@example.org", sender: p.sender, subject: "Hi", html: "<p>Hi</p>", ...extra });

describe("scheduled internal sends", () => {
  it("answers exactly the 4.5 body and stores the send with its activities waiting", async () => {
    const res = await post({ scheduled_at: "2099-03-10T10:00:00", timezone: "America/New_York" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      scheduled: true,
      scheduled_send_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      scheduled_for: "2099-03-10T14:00:00.000Z",
      scheduled_for_local: "2099-03-10 10:00 (America/New_York)",
      timezone: "America/New_York",
      message: "Email scheduled for 2099-03-10 10:00 (America/New_York)",
    });
    const id = res.body.scheduled_send_id as string;
    expect(await count(h.deps, "scheduled_sends WHERE id = $1 AND status = 'scheduled'", [id])).toBe(1);
    expect(
      await count(h.deps, "activities WHERE scheduled_send_id = $1 AND status = 'scheduled'", [id]),
    ).toBe(1);
    expect(await count(h.deps, "outbox_messages WHERE payload::text LIKE $1", [`%${id}%`])).toBe(0);
  });

  it("echoes a numeric offset as UTC<sign><hours> and reads phrases in it", async () => {
    const res = await post({ scheduled_at: "in 3 hours", timezone: -3 });
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe("UTC-3");
    expect(res.body.scheduled_for_local).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC-3\)$/);
    const delta = Date.parse(res.body.scheduled_for) - Date.now();
    expect(delta).toBeGreaterThan(3 * 3600_000 - 60_000);
    expect(delta).toBeLessThan(3 * 3600_000 + 60_000);
  });

  it("uses the project's default_timezone when no timezone is sent", async () => {
    await h.deps.db.pool.query("UPDATE projects SET default_timezone = 'Asia/Tokyo' WHERE id = $1", [
      p.projectId,
    ]);
    const res = await post({ scheduled_at: "2099-01-01 09:00" });
    expect(res.body).toMatchObject({ timezone: "Asia/Tokyo", scheduled_for: "2099-01-01T00:00:00.000Z" });
  });

  it.each([
    [{ scheduled_at: "2020-01-01T00:00:00Z" }, /past/],
    [{ scheduled_at: "someday maybe" }, /scheduled_at/],
    // blank is a bad value, not "now"
    [{ scheduled_at: "" }, /^Invalid scheduled_at: empty value$/],
    [{ scheduled_at: "   " }, /^Invalid scheduled_at: empty value$/],
    [{ scheduled_at: "tomorrow at 9am", timezone: "Mars/Base" }, /timezone/],
  ])("400 %j", async (extra, message) => {
    const res = await post(extra);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(message);
    expect(await count(h.deps, "scheduled_sends WHERE project_id = $1", [p.projectId])).toBe(0);
  });
});

describe("GET and DELETE /v1/scheduled-sends/:id", () => {
  it("shows the state, cancels before the due time (nothing handed over), then refuses a second cancel", async () => {
    const id = (await post({ scheduled_at: "2099-05-05T05:05:00Z" })).body.scheduled_send_id as string;
    const shown = await request(h.app).get(`/v1/scheduled-sends/${id}`).set(bearer(p.liveKey));
    expect(shown.body).toMatchObject({
      success: true,
      scheduled_send_id: id,
      status: "scheduled",
      scheduled_for: "2099-05-05T05:05:00.000Z",
      recipients: { scheduled: 1 },
    });
    // counted when accepted (live), given back when cancelled: it was never sent
    const usage = async () =>
      (
        await h.deps.db.pool.query(
          "SELECT (SELECT coalesce(sum(live_sent), 0)::int FROM project_usage WHERE project_id = $1) AS quota, (SELECT total_sent::int FROM projects WHERE id = $1) AS total",
          [p.projectId],
        )
      ).rows[0];
    expect(await usage()).toEqual({ quota: 1, total: 1 });
    const cancel = await request(h.app).delete(`/v1/scheduled-sends/${id}`).set(bearer(p.testKey));
    expect(cancel.body).toEqual({
      success: true,
      scheduled_send_id: id,
      status: "cancelled",
      cancelled_emails: 1,
    });
    expect(
      await count(h.deps, "activities WHERE scheduled_send_id = $1 AND status = 'cancelled'", [id]),
    ).toBe(1);
    // the scheduler's claim only takes status = 'scheduled': it can never pick this one up
    expect(await count(h.deps, "scheduled_sends WHERE id = $1 AND status = 'scheduled'", [id])).toBe(0);
    expect(await usage()).toEqual({ quota: 0, total: 0 });
    const again = await request(h.app).delete(`/v1/scheduled-sends/${id}`).set(bearer(p.liveKey));
    expect(again.status).toBe(409);
    expect(await usage()).toEqual({ quota: 0, total: 0 });
  });

  it("404 for another project's scheduled send, 401 without a key", async () => {
    const id = (await post({ scheduled_at: "2099-05-05T05:05:00Z" })).body.scheduled_send_id as string;
    const other = await makeProject(h.deps);
    expect((await request(h.app).get(`/v1/scheduled-sends/${id}`).set(bearer(other.liveKey))).status).toBe(
      404,
    );
    expect((await request(h.app).delete(`/v1/scheduled-sends/${id}`).set(bearer(other.liveKey))).status).toBe(
      404,
    );
    expect((await request(h.app).get(`/v1/scheduled-sends/${id}`)).status).toBe(401);
  });
});

describe("a project that scopes its test keys to test data (issue 49)", () => {
  it("hides a live scheduled send from its test key: neither shown nor cancelled", async () => {
    const id = (await post({ scheduled_at: "2099-06-06T06:06:00Z" })).body.scheduled_send_id as string;
    // off by default (the spec's reading): the test key sees the live send
    expect((await request(h.app).get(`/v1/scheduled-sends/${id}`).set(bearer(p.testKey))).status).toBe(200);
    await h.deps.db.pool.query("UPDATE projects SET test_keys_test_data_only = true WHERE id = $1", [
      p.projectId,
    ]);
    expect((await request(h.app).get(`/v1/scheduled-sends/${id}`).set(bearer(p.testKey))).status).toBe(404);
    expect((await request(h.app).delete(`/v1/scheduled-sends/${id}`).set(bearer(p.testKey))).status).toBe(
      404,
    );
    const live = await request(h.app).get(`/v1/scheduled-sends/${id}`).set(bearer(p.liveKey));
    expect(live.body).toMatchObject({ status: "scheduled" });
  });
});
