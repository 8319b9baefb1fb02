/**
 * The dev stack's stand-in for autovacuum's ANALYZE (src/autoanalyze.ts), against this package's test database on the
 * machine's real PostgreSQL (whose autovacuum may be on or off; the rule is checked either way).
 */
import { analyzeStaleTables, createDb, startAutoAnalyze } from "../src";

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

describe("analysing changed tables as autovacuum would", () => {
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

  it("runs only where autovacuum is off", async () => {
    const logged: string[] = [];
    const loop = await startAutoAnalyze(db, (m) => logged.push(m), 60_000);
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
