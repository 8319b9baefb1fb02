import type { Db } from "./create-db";

/**
 * The tables autovacuum would analyse now: those changed by more than autovacuum_analyze_threshold +
 * autovacuum_analyze_scale_factor × their rows since their last ANALYZE (PostgreSQL's own rule and settings).
 */
const STALE_TABLES = `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   WHERE s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
         + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0)
   ORDER BY s.n_mod_since_analyze DESC`;

/** ANALYZE every table autovacuum's rule says is due; returns their names. */
export async function analyzeStaleTables(db: Pick<Db, "pool">): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>(STALE_TABLES);
  for (const { name } of rows) await db.pool.query(`ANALYZE ${name}`);
  return rows.map((r) => r.name);
}

/**
 * Stands in for autovacuum's ANALYZE when the PostgreSQL the stack runs on has autovacuum off (this machine's CI
 * configuration does). Without statistics the planner picks indexes blind, and a named statement keeps the plan
 * it made on the empty tables of a fresh database: on such a stack one webhook event read the project's whole send
 * history, and shop deliveries scanned their whole table (`pg_stat_user_indexes`). Production keeps autovacuum
 * on, which analyses by the same rule; this makes the local stack, and the benchmarks run against it, plan as
 * production does. Returns null (nothing to do) when autovacuum is on.
 */
export async function startAutoAnalyze(
  db: Pick<Db, "pool">,
  log: (msg: string) => void,
  intervalMs = 5_000,
): Promise<{ stop: () => Promise<void> } | null> {
  const { rows } = await db.pool.query<{ autovacuum: string }>("SHOW autovacuum");
  if (rows[0]?.autovacuum === "on") return null;
  log(
    `PostgreSQL runs with autovacuum off: analysing changed tables every ${intervalMs / 1000} s as autovacuum would`,
  );
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    running ??= analyzeStaleTables(db)
      .catch((err: unknown) => log(`analyse failed: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
