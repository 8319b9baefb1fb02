import { createDb, createOutboxStore, enqueueOutbox, type OutboxRecord } from "../src";

const db = createDb(process.env.DATABASE_URL!);
const store = createOutboxStore(db.pool);
afterAll(() => db.close());
beforeEach(() => db.pool.query("DELETE FROM outbox_messages"));

const row = (n: number) => ({ exchange: "email.events", routingKey: "email.sent", payload: { n } });

describe("outbox store (real PostgreSQL)", () => {
  it("a rolled-back transaction leaves nothing; a committed one is relayed once", async () => {
    await expect(
      db.prisma.$transaction(async (tx) => {
        await enqueueOutbox(tx, [row(1)]);
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    await db.prisma.$transaction((tx) => enqueueOutbox(tx, [row(2)]));
    const published: OutboxRecord[] = [];
    expect(await store.relayBatch(10, async (rows) => void published.push(...rows))).toBe(1);
    expect(published.map((r) => r.payload)).toEqual([{ n: 2 }]);
    expect(await store.relayBatch(10, async (rows) => void published.push(...rows))).toBe(0);
    // Published rows are gone: the table holds only the backlog.
    expect((await db.pool.query("SELECT count(*)::int AS n FROM outbox_messages")).rows[0].n).toBe(0);
  });

  it("a failed publish leaves the row unpublished with the attempt counted", async () => {
    await db.prisma.$transaction((tx) => enqueueOutbox(tx, [row(3)]));
    await expect(store.relayBatch(10, async () => Promise.reject(new Error("broker down")))).rejects.toThrow(
      "broker down",
    );
    const res = await db.pool.query(
      "SELECT attempts, last_error, available_at > now() AS backing_off FROM outbox_messages",
    );
    expect(res.rows).toEqual([{ attempts: 1, last_error: "broker down", backing_off: true }]);
    // Due again after the 2 s back-off, not before.
    expect(await store.relayBatch(10, async () => undefined)).toBe(0);
  });

  it("two concurrent relays never hand out the same row", async () => {
    await db.prisma.$transaction((tx) =>
      enqueueOutbox(
        tx,
        Array.from({ length: 40 }, (_, i) => row(i)),
      ),
    );
    const seen: string[] = [];
    const slowPublish = async (rows: OutboxRecord[]) => {
      await new Promise((r) => setTimeout(r, 50));
      seen.push(...rows.map((r) => r.id));
    };
    const counts = await Promise.all([store.relayBatch(25, slowPublish), store.relayBatch(25, slowPublish)]);
    expect(counts[0] + counts[1]).toBe(40);
    expect(new Set(seen).size).toBe(40);
  });
});
