import { createDb, queryPlanned } from "../src";

const db = createDb(process.env.DATABASE_URL!, { max: 1 });
// the send-worker's kind of Db: named statements planned for every call
const planning = createDb(process.env.DATABASE_URL!, { max: 1, planEachCall: true });
afterAll(() => Promise.all([db.close(), planning.close()]));

const TEXT = "SELECT $1::int + 1 AS n";

describe("raw SQL as named prepared statements (real PostgreSQL)", () => {
  it("prepares a parameterised statement once per connection and reuses it", async () => {
    // max: 1, so every call below runs on the same connection (session) as the catalogue query.
    expect((await db.pool.query<{ n: number }>(TEXT, [1])).rows[0]!.n).toBe(2);
    expect((await db.pool.query<{ n: number }>(TEXT, [41])).rows[0]!.n).toBe(42);
    const prepared = await db.pool.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements WHERE statement = $1",
      [TEXT],
    );
    expect(prepared.rows).toHaveLength(1);
    expect(prepared.rows[0]!.name).toMatch(/^s_[0-9a-f]{20}$/);
  });

  it("leaves statements without values and Prisma's own calls unnamed", async () => {
    await db.pool.query("SELECT 12345 AS plain");
    await db.prisma.$queryRawUnsafe("SELECT 67890 AS via_prisma");
    const prepared = await db.pool.query<{ statement: string }>(
      `SELECT statement FROM pg_prepared_statements
        WHERE (statement LIKE '%12345%' OR statement LIKE '%67890%') AND statement NOT LIKE '%pg_prepared%'`,
      [],
    );
    expect(prepared.rows).toEqual([]);
  });
});

describe("batch statements over a growing table (real PostgreSQL)", () => {
  const table = `plan_probe_${process.pid}`;
  const UPDATE = `UPDATE ${table} SET status = 'sending' WHERE id = ANY($1::uuid[]) AND status = 'queued'`;
  // Rows read by sequential scans of the probe table, flushed to the statistics views first: both connections'
  // counts (a backend flushes its own at most once a second unless forced, so the planning connection's earlier
  // scans of the small table could land inside a later measurement on a loaded machine).
  const seqRowsRead = async (): Promise<number> => {
    for (const pool of [db.pool, planning.pool]) {
      await pool.query("SELECT pg_stat_force_next_flush()");
      await pool.query("SELECT 1");
    }
    await db.pool.query("SELECT pg_stat_clear_snapshot()");
    const res = await db.pool.query<{ n: string }>(
      `SELECT coalesce(seq_tup_read, 0)::text AS n FROM pg_stat_user_tables WHERE relname = '${table}'`,
    );
    return Number(res.rows[0]?.n ?? 0);
  };
  const someIds = async (n: number): Promise<string[]> =>
    (await db.pool.query<{ id: string }>(`SELECT id FROM ${table} LIMIT ${n}`)).rows.map((r) => r.id);

  const grow = (n: number) =>
    db.pool.query(
      `INSERT INTO ${table} (id, email_message_id, recipient)
       SELECT gen_random_uuid(), gen_random_uuid(), 'probe@example.com' FROM generate_series(1, ${n})`,
    );

  beforeAll(async () => {
    // The shape of activities (the table the send-worker claims from): with rows this wide, a never-analysed
    // table's generic plan for `id = ANY($1)` is a sequential scan.
    await db.pool.query(`CREATE TABLE ${table} (LIKE activities INCLUDING DEFAULTS INCLUDING INDEXES)`);
    await grow(20);
  });
  afterAll(() => db.pool.query(`DROP TABLE IF EXISTS ${table}`));

  it("a named statement keeps the plan it settled on while the table was small; queryPlanned never does", async () => {
    // Settle a generic plan on the small table (as the worker did on a fresh database), then let it grow.
    for (let i = 0; i < 8; i++) await db.pool.query(UPDATE, [await someIds(5)]);
    for (let i = 0; i < 8; i++) await queryPlanned(planning, UPDATE, [await someIds(5)]);
    await grow(20000);

    const ids = await someIds(10);
    const before = await seqRowsRead();
    await db.pool.query(UPDATE, [ids.slice(0, 5)]);
    const named = (await seqRowsRead()) - before;
    // The control: the kept plan reads the whole table for five rows.
    expect(named).toBeGreaterThanOrEqual(20000);

    // queryPlanned on a planEachCall Db: planned for the table as it is now, not read sequentially...
    const start = await seqRowsRead();
    await queryPlanned(planning, UPDATE, [ids.slice(5)]);
    expect((await seqRowsRead()) - start).toBe(0);
    // ...and still a named statement, parsed once on its connection, never given a generic plan.
    const prepared = await planning.pool.query<{ name: string; generic_plans: string; custom_plans: string }>(
      "SELECT name, generic_plans::text, custom_plans::text FROM pg_prepared_statements WHERE statement = $1",
      [UPDATE],
    );
    expect(prepared.rows).toEqual([
      { name: expect.stringMatching(/^s_[0-9a-f]{20}$/), generic_plans: "0", custom_plans: "9" },
    ]);
  });

  it("queryPlanned runs unnamed on a Db without planEachCall", async () => {
    await queryPlanned(db, `${UPDATE} AND recipient = $2`, [[], "x"]);
    const prepared = await db.pool.query("SELECT 1 FROM pg_prepared_statements WHERE statement = $1", [
      `${UPDATE} AND recipient = $2`,
    ]);
    expect(prepared.rows).toEqual([]);
  });
});
