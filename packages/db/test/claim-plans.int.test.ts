import { claimDueSteps, createDb, createOutboxStore } from "../src";

// The claims that take the oldest due rows with FOR UPDATE SKIP LOCKED, run as named prepared statements: each
// settles on a generic plan after five runs, and a poller's first runs meet an empty table (a fresh stack). With
// the locking sub-select joined to the table it updates, that plan was a nested loop that ran the sub-select (or
// read the locked rows) again for every row of the table: with a 46,000-row outbox backlog and a relay per
// service contending, every lease ran for minutes. Picked in `ARRAY(…)`, the rows are locked and read once.

// max: 1, so every call runs on one connection and finds its own kept plan.
const db = createDb(process.env.DATABASE_URL!, { max: 1 });
afterAll(() => db.close());

type PlanNode = { "Node Type": string; "Actual Loops"?: number; Plans?: PlanNode[] };
/** The locking and CTE-reading nodes of an executed plan that ran more than once. */
const runAgain = (n: PlanNode): string[] => [
  ...((n["Node Type"] === "LockRows" || n["Node Type"] === "CTE Scan") && (n["Actual Loops"] ?? 0) > 1
    ? [`${n["Node Type"]} × ${n["Actual Loops"]}`]
    : []),
  ...(n.Plans ?? []).flatMap(runAgain),
];

/** Runs the connection's kept plan of the prepared statement whose text matches `like`, under EXPLAIN, rolled back. */
async function keptPlan(like: string, args: string): Promise<PlanNode> {
  const { rows: named } = await db.pool.query<{ name: string }>(
    "SELECT name FROM pg_prepared_statements WHERE statement LIKE $1",
    [like],
  );
  expect(named).toHaveLength(1);
  await db.pool.query("BEGIN");
  try {
    const { rows } = await db.pool.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${named[0]!.name}(${args})`,
    );
    return rows[0]!["QUERY PLAN"][0].Plan;
  } finally {
    await db.pool.query("ROLLBACK");
  }
}

/** The table as a fresh database has it: no pages, analysed empty. */
async function emptyAndAnalysed(table: string): Promise<void> {
  await db.pool.query(`TRUNCATE ${table}`);
  await db.pool.query(`ANALYZE ${table}`);
}

const BACKLOG = 2000;

describe("claims under a plan kept from an empty table (a fresh stack)", () => {
  it("the outbox lease locks the oldest rows in one pass", async () => {
    const store = createOutboxStore(db.pool);
    await emptyAndAnalysed("outbox_messages");
    for (let i = 0; i < 8; i++) expect(await store.relayBatch(500, async () => undefined)).toBe(0);
    await db.pool.query(
      `INSERT INTO outbox_messages (id, exchange, routing_key, payload, created_at)
       SELECT gen_random_uuid(), 'email.events', 'email.opened', '{}'::jsonb, now() - g * interval '1 ms'
         FROM generate_series(1, $1::int) AS g`,
      [BACKLOG],
    );

    // `id IN (SELECT … FOR UPDATE SKIP LOCKED)`: LockRows × 2,000
    expect(runAgain(await keptPlan("%UPDATE outbox_messages SET available_at%", "500"))).toEqual([]);

    const oldest = await db.pool.query<{ id: string }>(
      "SELECT id FROM outbox_messages ORDER BY created_at LIMIT 500",
    );
    const published: string[] = [];
    expect(await store.relayBatch(500, async (rows) => void published.push(...rows.map((r) => r.id)))).toBe(
      500,
    );
    expect(new Set(published)).toEqual(new Set(oldest.rows.map((r) => r.id)));
    const { rows } = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox_messages");
    expect(rows[0]!.n).toBe(BACKLOG - 500);
  });

  it("the abandoned-cart claim reads the steps it locked once", async () => {
    await emptyAndAnalysed("abandoned_cart_steps");
    for (let i = 0; i < 8; i++) expect(await claimDueSteps(db, 500, 60)).toEqual([]);
    await db.pool.query(
      `INSERT INTO abandoned_cart_steps (id, project_id, shop_id, checkout_id, step, due_at)
       SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 1, now() - g * interval '1 ms'
         FROM generate_series(1, $1::int) AS g`,
      [BACKLOG],
    );

    // joined to its locking CTE (`FROM due WHERE s.id = due.id`): CTE Scan × 2,000
    expect(runAgain(await keptPlan("%FROM abandoned_cart_steps%SKIP LOCKED%", "500, 60"))).toEqual([]);

    // the steps have no checkout here, so none is returned; the 500 due first are claimed
    await claimDueSteps(db, 500, 60);
    const { rows } = await db.pool.query<{ n: number; last: boolean }>(
      `SELECT count(*)::int AS n,
              max(due_at) FILTER (WHERE status = 'sending') < min(due_at) FILTER (WHERE status = 'pending') AS last
         FROM abandoned_cart_steps`,
    );
    expect(rows[0]).toEqual({ n: BACKLOG, last: true });
    const sending = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM abandoned_cart_steps WHERE status = 'sending'",
    );
    expect(sending.rows[0]!.n).toBe(500);
  });
});
