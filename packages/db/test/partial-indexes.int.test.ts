/**
 * The indexes on columns most rows leave empty are partial (migration 20261128142000_partial_indexes): a send
 * writes no entry for its NULL batch, scheduled send, Message-ID or provider id, and a delivery that succeeded no
 * entry in the retry index, while the lookups by those columns still find their rows through them.
 */
import { createDb } from "../src";

const db = createDb(process.env.DATABASE_URL!, { max: 1 });
const pool = db.pool;
afterAll(() => db.close());

const PARTIAL: Record<string, string> = {
  activities_batch_id_idx: "(batch_id IS NOT NULL)",
  activities_scheduled_send_id_idx: "(scheduled_send_id IS NOT NULL)",
  activities_message_id_idx: "(message_id IS NOT NULL)",
  activities_provider_message_id_key: "(provider_message_id IS NOT NULL)",
  webhook_deliveries_status_next_attempt_at_idx: "(status = ANY (ARRAY['pending'::text, 'failed'::text]))",
};

/** The plan PostgreSQL would use for `sql` with parameters, as prepared statements use it (a generic plan). */
async function genericPlan(sql: string, types: string[]): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // a table of a few rows is read whole otherwise; the question is whether the index can serve the query
    await client.query("SET LOCAL enable_seqscan = off");
    await client.query("SET LOCAL plan_cache_mode = force_generic_plan");
    await client.query(`PREPARE partial_probe(${types.join(", ")}) AS ${sql}`);
    const nulls = types.map(() => "NULL").join(", ");
    const r = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE partial_probe(${nulls})`);
    return r.rows.map((x) => x["QUERY PLAN"]).join("\n");
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    await client.query("DEALLOCATE ALL").catch(() => undefined);
    client.release();
  }
}

describe("partial indexes on the send path's sparse columns", () => {
  it("index only the rows that have a value", async () => {
    const r = await pool.query<{ name: string; predicate: string | null }>(
      `SELECT c.relname AS name, pg_get_expr(i.indpred, i.indrelid) AS predicate
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ANY($1::text[])`,
      [Object.keys(PARTIAL)],
    );
    expect(Object.fromEntries(r.rows.map((x) => [x.name, x.predicate]))).toEqual(PARTIAL);
  });

  it("keeps one activity per provider message id, and any number without one", async () => {
    const client = await pool.connect();
    const insert = (providerMessageId: string | null) =>
      client.query(
        `INSERT INTO activities (id, email_message_id, recipient, provider_message_id)
         VALUES (gen_random_uuid(), gen_random_uuid(), 'r@example.com', $1)`,
        [providerMessageId],
      );
    try {
      await client.query("BEGIN");
      await insert(null);
      await insert(null);
      await insert("partial-probe-1");
      await expect(insert("partial-probe-1")).rejects.toMatchObject({
        code: "23505",
        constraint: "activities_provider_message_id_key",
      });
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  });

  it.each([
    ["activities_batch_id_idx", "SELECT count(*) FROM activities WHERE batch_id = $1", ["uuid"]],
    [
      "activities_scheduled_send_id_idx",
      "SELECT id FROM activities WHERE scheduled_send_id = ANY($1) AND status = 'scheduled'",
      ["uuid[]"],
    ],
    [
      "activities_message_id_idx",
      "SELECT id FROM activities WHERE message_id = ANY($1) OR provider_message_id = ANY($2)",
      ["text[]", "text[]"],
    ],
    [
      "activities_provider_message_id_key",
      "SELECT id FROM activities WHERE provider_message_id = $1 OR (id = $2 AND provider_message_id IS NULL)",
      ["text", "uuid"],
    ],
  ])("%s still serves its lookup", async (index, sql, types) => {
    expect(await genericPlan(sql, types)).toContain(index);
  });
});
