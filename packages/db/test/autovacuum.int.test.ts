/**
 * The dev stack's stand-in for autovacuum (src/autovacuum.ts), against this package's test database on the
 * machine's real PostgreSQL (whose autovacuum may be on or off; the rule is checked either way).
 */
import { analyzeStaleTables, createDb, startAutovacuumStandIn, vacuumDeadTables } from "../src";

const db = createDb(process.env.DATABASE_URL!, { max: 1 });
const pool = db.pool;
const table = `analyze_probe_${process.pid}`;
afterAll(async () => {
  await pool.query(`DROP TABLE IF EXISTS ${table}`);
  await db.close();
});

/** The probe's statistics as the planner sees them, after this connection's counters reached the views. */
async function probe(): Promise<{ reltuples: number; analysed: boolean }> {
  await pool.query("SELECT pg_stat_force_next_flush()");
  await pool.query("SELECT pg_stat_clear_snapshot()");
  const r = await pool.query<{ reltuples: number; analysed: boolean }>(
    `SELECT c.reltuples::float8 AS reltuples, s.last_analyze IS NOT NULL AS analysed
       FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = $1`,
    [table],
  );
  return r.rows[0]!;
}

describe("vacuuming and analysing changed tables as autovacuum would", () => {
  beforeAll(() => pool.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v text)`));

  it("analyses a table changed past PostgreSQL's threshold, and only then", async () => {
    // 40 rows: under autovacuum_analyze_threshold (50), not due yet
    await pool.query(`INSERT INTO ${table} SELECT g, 'x' FROM generate_series(1, 40) g`);
    await probe();
    expect(await analyzeStaleTables(db)).not.toContain(`public.${table}`);
    expect((await probe()).analysed).toBe(false);

    await pool.query(`INSERT INTO ${table} SELECT g, 'x' FROM generate_series(41, 1000) g`);
    await probe();
    expect(await analyzeStaleTables(db)).toContain(`public.${table}`);
    expect(await probe()).toEqual({ reltuples: 1000, analysed: true });

    // analysed: nothing changed since, so not again; then 10% + 50 more rows make it due again
    expect(await analyzeStaleTables(db)).not.toContain(`public.${table}`);
    await pool.query(`UPDATE ${table} SET v = 'y' WHERE id <= 151`);
    await probe();
    expect(await analyzeStaleTables(db)).toContain(`public.${table}`);
  });

  it("vacuums a table whose dead rows pass PostgreSQL's threshold, and only then", async () => {
    const dead = async () => {
      await pool.query("SELECT pg_stat_force_next_flush()");
      await pool.query("SELECT pg_stat_clear_snapshot()");
      const r = await pool.query<{ n: string; vacuumed: boolean }>(
        `SELECT n_dead_tup AS n, last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables WHERE relname = $1`,
        [table],
      );
      return { n: Number(r.rows[0]!.n), vacuumed: r.rows[0]!.vacuumed };
    };
    // 1,000 rows (analysed above): 40 dead are under autovacuum_vacuum_threshold (50) + 20% of 1,000
    await pool.query(`DELETE FROM ${table} WHERE id <= 40`);
    await dead();
    expect(await vacuumDeadTables(db)).not.toContain(`public.${table}`);
    // the queue pattern: rows deleted once handled, until the dead ones pass the rule
    await pool.query(`DELETE FROM ${table} WHERE id <= 700`);
    expect((await dead()).n).toBeGreaterThanOrEqual(700);
    expect(await vacuumDeadTables(db)).toContain(`public.${table}`);
    expect(await dead()).toEqual({ n: 0, vacuumed: true });
    expect(await vacuumDeadTables(db)).not.toContain(`public.${table}`);
  });

  it("vacuums and analyses at autovacuum's pace (its cost delay and limit), and leaves the connection as it was", async () => {
    await pool.query(`DELETE FROM ${table}`);
    await pool.query(`INSERT INTO ${table} SELECT g, 'x' FROM generate_series(1, 1000) g`);
    await pool.query(`DELETE FROM ${table}`);
    await pool.query("SELECT pg_stat_force_next_flush()");
    // the settings each VACUUM and ANALYZE ran under, read on its own connection just before it
    const seen: string[] = [];
    const watched = {
      pool: {
        query: pool.query.bind(pool),
        // runDue's connection, seen through a wrapper (the pooled client itself is left as it is)
        connect: async () => {
          const client = await pool.connect();
          return {
            release: (err?: Error) => client.release(err),
            query: async (text: string) => {
              if (/^(VACUUM|ANALYZE) /.test(text)) {
                const r = await client.query<{ d: string; l: string }>(
                  "SELECT current_setting('vacuum_cost_delay') AS d, current_setting('vacuum_cost_limit') AS l",
                );
                seen.push(`${text.split(" ")[0]} ${r.rows[0]!.d}/${r.rows[0]!.l}`);
              }
              return client.query(text);
            },
          };
        },
      },
    } as unknown as Pick<typeof db, "pool">;
    // autovacuum's own settings, -1 meaning "the plain setting's"
    const show = async (name: string) =>
      (await pool.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
    const own = async (name: string) => {
      const v = await show(`autovacuum_${name}`);
      return v === "-1" ? show(name) : v;
    };
    const pace = `${await own("vacuum_cost_delay")}/${await own("vacuum_cost_limit")}`;
    const plain = `${await show("vacuum_cost_delay")}/${await show("vacuum_cost_limit")}`;

    expect(await vacuumDeadTables(watched)).toContain(`public.${table}`);
    expect(await analyzeStaleTables(watched)).toContain(`public.${table}`);
    expect(seen.filter((s) => s.startsWith("VACUUM")).length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.startsWith("ANALYZE")).length).toBeGreaterThan(0);
    expect(new Set(seen.map((s) => s.split(" ")[1]))).toEqual(new Set([pace]));
    // the pool's one connection is back to its plain settings
    expect(`${await show("vacuum_cost_delay")}/${await show("vacuum_cost_limit")}`).toBe(plain);
    const after = await pool.query<{ reset: boolean }>(
      `SELECT bool_and(setting = reset_val) AS reset FROM pg_settings
        WHERE name IN ('vacuum_cost_delay', 'vacuum_cost_limit')`,
    );
    expect(after.rows[0]!.reset).toBe(true);
  });

  it("runs only where autovacuum is off", async () => {
    const logged: string[] = [];
    const loop = await startAutovacuumStandIn(db, (m) => logged.push(m), 60_000);
    const { rows } = await pool.query<{ autovacuum: string }>("SHOW autovacuum");
    if (rows[0]!.autovacuum === "on") {
      expect(loop).toBeNull();
      expect(logged).toEqual([]);
    } else {
      expect(loop).not.toBeNull();
      expect(logged[0]).toMatch(/autovacuum off/);
      await loop!.stop();
    }
  });
});
