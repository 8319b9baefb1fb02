import { createDb, createOutboxStore } from "../src";

// max: 1, so every lease runs on one connection, whose named statement settles on a generic plan after five runs.
const db = createDb(process.env.DATABASE_URL!, { max: 1 });
const store = createOutboxStore(db.pool);
afterAll(() => db.close());

type PlanNode = { "Node Type": string; "Actual Loops"?: number; Plans?: PlanNode[] };
const lockRowsLoops = (n: PlanNode): number[] => [
  ...(n["Node Type"] === "LockRows" ? [n["Actual Loops"] ?? 0] : []),
  ...(n.Plans ?? []).flatMap(lockRowsLoops),
];

describe("the outbox lease under a plan made while the table was empty (a fresh stack)", () => {
  it("locks its rows in one pass, not once per row of the table", async () => {
    // as a fresh database has it: no pages, analysed empty
    await db.pool.query("TRUNCATE outbox_messages");
    await db.pool.query("ANALYZE outbox_messages");
    // the relay polls an empty outbox first: its prepared lease settles on a plan for an empty table
    for (let i = 0; i < 8; i++) expect(await store.relayBatch(500, async () => undefined)).toBe(0);
    const backlog = 2000;
    await db.pool.query(
      `INSERT INTO outbox_messages (id, exchange, routing_key, payload, created_at)
       SELECT gen_random_uuid(), 'email.events', 'email.opened', '{}'::jsonb, now() - g * interval '1 ms'
         FROM generate_series(1, $1::int) AS g`,
      [backlog],
    );

    // The lease as the relay's connection would run it now (its kept plan), rolled back.
    const { rows: named } = await db.pool.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements WHERE statement LIKE 'UPDATE outbox_messages SET available_at%'",
    );
    expect(named).toHaveLength(1);
    await db.pool.query("BEGIN");
    const { rows: plan } = await db.pool.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${named[0]!.name}(500)`,
    );
    await db.pool.query("ROLLBACK");
    // Leased as `id IN (SELECT … FOR UPDATE SKIP LOCKED)`, that plan was a nested-loop semi-join that ran the
    // locking sub-select again for each of the 2,000 rows; with a 46,000-row backlog and a relay per service
    // contending, every lease ran for minutes.
    expect(lockRowsLoops(plan[0]!["QUERY PLAN"][0].Plan)).toEqual([1]);

    const published: string[] = [];
    expect(await store.relayBatch(500, async (rows) => void published.push(...rows.map((r) => r.id)))).toBe(
      500,
    );
    expect(new Set(published).size).toBe(500);
    const { rows } = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox_messages");
    expect(rows[0]!.n).toBe(backlog - 500);
  });
});
