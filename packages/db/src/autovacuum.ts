import type { Db } from "./create-db";

/**
 * The tables autovacuum's rule says are due for `work` (PostgreSQL's own rule and settings): more than
 * autovacuum_<work>_threshold + autovacuum_<work>_scale_factor × their rows, counting the rows changed since their
 * last ANALYZE (analyze) or their dead rows (vacuum). Runs the command on each; returns their names.
 */
async function runDue(db: Pick<Db, "pool">, work: "analyze" | "vacuum"): Promise<string[]> {
  const counter = work === "analyze" ? "s.n_mod_since_analyze" : "s.n_dead_tup";
  const { rows } = await db.pool.query<{ name: string }>(`
    SELECT format('%I.%I', s.schemaname, s.relname) AS name
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE ${counter} > current_setting('autovacuum_${work}_threshold')::float8
           + current_setting('autovacuum_${work}_scale_factor')::float8 * greatest(c.reltuples, 0)
     ORDER BY ${counter} DESC`);
  if (!rows.length) return [];
  const client = await db.pool.connect();
  try {
    await client.query(AUTOVACUUM_PACE);
    for (const { name } of rows) await client.query(`${work.toUpperCase()} ${name}`);
  } finally {
    // a connection that cannot be reset (broken mid-command) is closed, not pooled with autovacuum's pace
    const failed = await client.query("RESET vacuum_cost_delay; RESET vacuum_cost_limit").then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
    client.release(failed);
  }
  return rows.map((r) => r.name);
}

/**
 * autovacuum's pace for this session's VACUUM and ANALYZE: its cost delay and limit (-1: the plain setting's), so a
 * table is worked through in small steps with sleeps between them, as autovacuum does, not at full speed. Unpaced,
 * an ANALYZE of a busy table took a core for 250 ms during bench/shop and stalled the webhooks being answered.
 */
const AUTOVACUUM_PACE = `
  SELECT set_config('vacuum_cost_delay', CASE current_setting('autovacuum_vacuum_cost_delay')
           WHEN '-1' THEN current_setting('vacuum_cost_delay')
           ELSE current_setting('autovacuum_vacuum_cost_delay') END, false),
         set_config('vacuum_cost_limit', CASE current_setting('autovacuum_vacuum_cost_limit')
           WHEN '-1' THEN current_setting('vacuum_cost_limit')
           ELSE current_setting('autovacuum_vacuum_cost_limit') END, false)`;

/** ANALYZE every table autovacuum's rule says is due; returns their names. */
export const analyzeStaleTables = (db: Pick<Db, "pool">): Promise<string[]> => runDue(db, "analyze");

/**
 * VACUUM every table autovacuum's rule says is due; returns their names. The queue tables need it most: the outbox
 * deletes every row it publishes, and without a vacuum each relay lease walks past all the dead ones (a send
 * benchmark left 20,552 dead rows behind the live few).
 */
export const vacuumDeadTables = (db: Pick<Db, "pool">): Promise<string[]> => runDue(db, "vacuum");

/**
 * Stands in for autovacuum, its VACUUM and its ANALYZE by its own rules, when the PostgreSQL the stack runs on has
 * autovacuum off (this machine's CI configuration does). Without statistics the planner picks indexes blind, and a
 * named statement keeps the plan it made on the empty tables of a fresh database: on such a stack one webhook event
 * read the project's whole send history, and shop deliveries scanned their whole table (`pg_stat_user_indexes`).
 * Without vacuums the queue tables' dead rows pile up. Production keeps autovacuum on, which works by the same
 * rules; this makes the local stack, and the benchmarks run against it, behave as production does. Returns null
 * (nothing to do) when autovacuum is on.
 */
export async function startAutovacuumStandIn(
  db: Pick<Db, "pool">,
  log: (msg: string) => void,
  intervalMs = 5_000,
): Promise<{ stop: () => Promise<void> } | null> {
  const { rows } = await db.pool.query<{ autovacuum: string }>("SHOW autovacuum");
  if (rows[0]?.autovacuum === "on") return null;
  log(
    `PostgreSQL runs with autovacuum off: vacuuming and analysing changed tables every ${intervalMs / 1000} s as autovacuum would`,
  );
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    running ??= vacuumDeadTables(db)
      .then(() => analyzeStaleTables(db))
      .catch((err: unknown) =>
        log(`vacuum or analyse failed: ${err instanceof Error ? err.message : String(err)}`),
      )
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
