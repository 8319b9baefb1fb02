import { randomUUID } from "node:crypto";
import { projectIdOf } from "@emailsvc/contracts";
import {
  type AttemptRecord,
  createDb,
  createDeliveryWrites,
  type NewDelivery,
  recordAttempts,
  storeDeliveries,
  storeFirstAttempts,
} from "../src";

const db = createDb(process.env.DATABASE_URL!, { max: 4 });
afterAll(() => db.close());

const projectId = projectIdOf(randomUUID());
const delivery = (over: Partial<NewDelivery> = {}): NewDelivery => ({
  eventId: randomUUID(),
  kind: "outbound",
  event: "email.sent",
  isTest: false,
  url: "https://example.com/hook",
  body: `{"n":${Math.random()}}`,
  ...over,
});

beforeAll(() => db.pool.query("INSERT INTO projects (id, name) VALUES ($1, 'deliveries')", [projectId]));

describe("webhook deliveries stored and attempts logged many per statement (real PostgreSQL)", () => {
  it("answers each item in order: new, skipped without a URL, stored before, and the same event twice", async () => {
    const earlier = delivery();
    const [first] = await storeDeliveries(db, [{ projectId, delivery: earlier }]);
    const fresh = delivery();
    const noUrl = delivery({ url: null });
    const again = { ...earlier, body: "another body" };
    const rows = await storeDeliveries(
      db,
      [fresh, noUrl, again, fresh].map((d) => ({ projectId, delivery: d })),
    );
    expect(rows.map((r) => r?.status)).toEqual(["pending", "skipped", "pending", "pending"]);
    expect(rows[0]!.body).toBe(fresh.body);
    // stored once: the earlier row (its body, its id), and one row for the event listed twice
    expect(rows[2]).toEqual(first);
    expect(rows[3]).toEqual(rows[0]);
    const n = await db.pool.query("SELECT 1 FROM webhook_deliveries WHERE event_id = ANY($1)", [
      [fresh.eventId, noUrl.eventId, earlier.eventId],
    ]);
    expect(n.rowCount).toBe(3);
  });

  it("logs each attempt and moves each delivery on", async () => {
    const [a, b] = await storeDeliveries(
      db,
      [delivery(), delivery()].map((d) => ({ projectId, delivery: d })),
    );
    await recordAttempts(db, [
      {
        delivery: a!,
        attempt: {
          attempt: 1,
          statusCode: 200,
          responseBody: "ok",
          durationMs: 12,
          error: null,
          status: "succeeded",
          nextDelayMs: null,
          url: "https://example.com/hook",
        },
      },
      {
        delivery: b!,
        attempt: {
          attempt: 1,
          statusCode: null,
          responseBody: null,
          durationMs: 2000,
          error: "timeout",
          status: "failed",
          nextDelayMs: 60_000,
          url: "https://example.com/moved",
        },
      },
    ]);
    const r = await db.pool.query<{
      id: string;
      status: string;
      attempts: number;
      url: string;
      due: boolean | null;
      logged: string;
    }>(
      `SELECT d.id, d.status, d.attempts, d.url, d.next_attempt_at > now() + interval '50 seconds' AS due,
              (SELECT string_agg(coalesce(w.status_code::text, w.error), ',') FROM webhook_attempts w
                WHERE w.delivery_id = d.id) AS logged
         FROM webhook_deliveries d WHERE d.id = ANY($1) ORDER BY d.id = $2 DESC`,
      [[a!.id, b!.id], a!.id],
    );
    expect(r.rows).toEqual([
      {
        id: a!.id,
        status: "succeeded",
        attempts: 1,
        url: "https://example.com/hook",
        due: null,
        logged: "200",
      },
      {
        id: b!.id,
        status: "failed",
        attempts: 1,
        url: "https://example.com/moved",
        due: true,
        logged: "timeout",
      },
    ]);
  });

  it("group-commits concurrent stores and attempts: 30 at once take 2 statements each, not 30", async () => {
    const writes = createDeliveryWrites(db);
    const items = Array.from({ length: 30 }, () => delivery());
    const statements = jest.spyOn(db.pool, "query");
    const rows = await Promise.all(items.map((d) => writes.store(projectId, d)));
    expect(rows.map((r) => r!.body)).toEqual(items.map((d) => d.body));
    // the first runs alone, the other 29 share the next statement
    expect(statements).toHaveBeenCalledTimes(2);
    statements.mockClear();
    await Promise.all(
      rows.map((d) =>
        writes.record(d!, {
          attempt: 1,
          statusCode: 204,
          responseBody: "",
          durationMs: 3,
          error: null,
          status: "succeeded",
          nextDelayMs: null,
          url: "https://example.com/hook",
        }),
      ),
    );
    expect(statements).toHaveBeenCalledTimes(2);
    statements.mockRestore();
    const done = await db.pool.query(
      "SELECT 1 FROM webhook_deliveries WHERE id = ANY($1) AND status = 'succeeded'",
      [rows.map((r) => r!.id)],
    );
    expect(done.rowCount).toBe(30);
  });
  it("stores deliveries with their first attempt in one statement; a copy stored first is answered instead", async () => {
    const ok: AttemptRecord = {
      attempt: 1,
      statusCode: 200,
      responseBody: "ok",
      durationMs: 7,
      error: null,
      status: "succeeded",
      nextDelayMs: null,
      url: "https://example.com/hook",
    };
    const refused: AttemptRecord = {
      ...ok,
      statusCode: null,
      responseBody: null,
      error: "connect ECONNREFUSED",
      status: "failed",
      nextDelayMs: 60_000,
      url: "https://example.com/moved",
    };
    const [earlier] = await storeDeliveries(db, [{ projectId, delivery: delivery() }]);
    const earlierEvent = (
      await db.pool.query<{ event_id: string }>("SELECT event_id FROM webhook_deliveries WHERE id = $1", [
        earlier!.id,
      ])
    ).rows[0]!.event_id;
    const a = delivery();
    const b = delivery();
    const statements = jest.spyOn(db.pool, "query");
    const answers = await storeFirstAttempts(db, [
      { projectId, delivery: a, attempt: ok },
      { projectId, delivery: b, attempt: refused },
      { projectId, delivery: delivery({ eventId: earlierEvent }), attempt: ok },
      { projectId, delivery: { ...a, body: "a second copy" }, attempt: refused },
    ]);
    // one statement, and one more to read the two deliveries stored first
    expect(statements).toHaveBeenCalledTimes(2);
    statements.mockRestore();
    expect(answers[0]).toBeNull();
    expect(answers[1]).toBeNull();
    expect(answers[2]).toEqual(earlier);
    expect(answers[3]).toMatchObject({ body: a.body, status: "succeeded", attempts: 1 });
    const r = await db.pool.query(
      `SELECT d.event_id, d.body, d.status, d.attempts, d.url, d.last_status_code,
              d.next_attempt_at > now() + interval '50 seconds' AS due,
              (SELECT string_agg(w.attempt_number || ':' || coalesce(w.status_code::text, w.error), ',')
                 FROM webhook_attempts w WHERE w.delivery_id = d.id) AS logged
         FROM webhook_deliveries d WHERE d.event_id = ANY($1) ORDER BY d.event_id = $2 DESC`,
      [[a.eventId, b.eventId], a.eventId],
    );
    expect(r.rows).toEqual([
      {
        event_id: a.eventId,
        body: a.body,
        status: "succeeded",
        attempts: 1,
        url: "https://example.com/hook",
        last_status_code: 200,
        due: null,
        logged: "1:200",
      },
      {
        event_id: b.eventId,
        body: b.body,
        status: "failed",
        attempts: 1,
        url: "https://example.com/moved",
        last_status_code: null,
        due: true,
        logged: "1:connect ECONNREFUSED",
      },
    ]);
  });
});
