import { createDb } from "../src";

const db = createDb(process.env.DATABASE_URL!, { max: 1 });
afterAll(() => db.close());

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
