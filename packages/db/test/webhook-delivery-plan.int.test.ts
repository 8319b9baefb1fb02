import { randomUUID } from "node:crypto";
import { projectIdOf } from "@emailsvc/contracts";
import { createDb, loadInboundDelivery, loadOutboundDeliveries, loadOutboundDelivery } from "../src";

// max: 1, so every call runs on one connection, whose named statements settle on a generic plan after five runs.
const db = createDb(process.env.DATABASE_URL!, { max: 1 });
afterAll(() => db.close());

/** Index entries read on `table` so far, flushed to the statistics views first. */
async function indexEntriesRead(table: string): Promise<number> {
  await db.pool.query("SELECT pg_stat_force_next_flush()");
  await db.pool.query("SELECT pg_stat_clear_snapshot()");
  const r = await db.pool.query<{ n: string }>(
    "SELECT coalesce(sum(idx_tup_read), 0)::text AS n FROM pg_stat_user_indexes WHERE relname = $1",
    [table],
  );
  return Number(r.rows[0]!.n);
}

describe("loading an event's delivery on a database never analysed (autovacuum off, a fresh install)", () => {
  const projectId = projectIdOf(randomUUID());

  beforeAll(async () => {
    await db.pool.query("INSERT INTO projects (id, name) VALUES ($1, 'plan probe')", [projectId]);
  });

  it("reads the one activity by its key, however many the project has", async () => {
    const insert = (n: number) =>
      db.pool.query(
        `INSERT INTO activities (id, project_id, email_message_id, recipient)
         SELECT gen_random_uuid(), $1, gen_random_uuid(), 'probe@example.com' FROM generate_series(1, $2::int)`,
        [projectId, n],
      );
    await insert(5);
    const first = (
      await db.pool.query<{ id: string }>("SELECT id FROM activities WHERE project_id = $1", [projectId])
    ).rows;
    // the generic plan is made now, while the project's history is small (as on a fresh stack)
    for (const a of first) {
      const r = await loadOutboundDelivery(db, projectId, randomUUID(), a.id);
      expect(r?.id).toBe(a.id);
    }
    for (let i = 0; i < 3; i++) await loadOutboundDelivery(db, projectId, randomUUID(), first[0]!.id);
    await insert(20_000);

    const before = await indexEntriesRead("activities");
    const r = await loadOutboundDelivery(db, projectId, randomUUID(), first[1]!.id);
    expect(r?.id).toBe(first[1]!.id);
    // Joined on `id = $2 AND project_id = $3`, the kept plan walked the (project_id, created_at) index: 20,005.
    expect((await indexEntriesRead("activities")) - before).toBeLessThanOrEqual(2);

    // a batch (the dispatcher reads the events it holds at once together): each event its own send, in order
    const batchBefore = await indexEntriesRead("activities");
    const batch = await loadOutboundDeliveries(db, [
      { projectId, eventId: randomUUID(), activityId: first[2]!.id },
      { projectId, eventId: randomUUID(), activityId: randomUUID() },
      { projectId, eventId: randomUUID(), activityId: "not-a-uuid" },
      { projectId: projectIdOf(randomUUID()), eventId: randomUUID(), activityId: first[4]!.id },
      { projectId, eventId: randomUUID(), activityId: first[3]!.id },
    ]);
    expect(batch.map((r) => r?.id ?? null)).toEqual([first[2]!.id, null, null, null, first[3]!.id]);
    expect((await indexEntriesRead("activities")) - batchBefore).toBeLessThanOrEqual(8);

    // still scoped to the project: another project's id finds no send
    expect(
      (await loadOutboundDelivery(db, projectIdOf(randomUUID()), randomUUID(), first[1]!.id))?.id ?? null,
    ).toBeNull();
  });

  it("reads the one inbound reply by its key, however many the project has", async () => {
    const insert = (n: number) =>
      db.pool.query(
        `INSERT INTO inbound_messages (id, project_id, dedupe_key, ses_message_id, from_email, recipient, forward, size)
         SELECT gen_random_uuid(), $1, gen_random_uuid()::text, gen_random_uuid()::text, 'a@example.com',
                'r@example.com', 'none', 1
           FROM generate_series(1, $2::int)`,
        [projectId, n],
      );
    await insert(8);
    const first = (
      await db.pool.query<{ id: string }>("SELECT id FROM inbound_messages WHERE project_id = $1", [
        projectId,
      ])
    ).rows;
    for (const m of first)
      expect((await loadInboundDelivery(db, projectId, randomUUID(), m.id))?.id).toBe(m.id);
    await insert(20_000);

    const before = await indexEntriesRead("inbound_messages");
    expect((await loadInboundDelivery(db, projectId, randomUUID(), first[0]!.id))?.id).toBe(first[0]!.id);
    expect((await indexEntriesRead("inbound_messages")) - before).toBeLessThanOrEqual(2);
    expect(
      (await loadInboundDelivery(db, projectIdOf(randomUUID()), randomUUID(), first[0]!.id))?.id ?? null,
    ).toBeNull();
  });
});
