/**
 * A campaign's ledger leaves the planner's statistics of campaign_recipients current (materialiseCampaign), not only
 * when it is big: a fresh database's first campaigns write ledgers of a few thousand rows into a table never
 * analysed, and their dispatch cycles planned on guesses (1 pending row of 10,000) until autovacuum got to it.
 */
import { randomUUID } from "node:crypto";
import { projectIdOf } from "@emailsvc/contracts";
import { createDb, materialiseCampaign, withTransaction } from "../src";

const db = createDb(process.env.DATABASE_URL!, { max: 1 });
afterAll(() => db.close());

const projectId = projectIdOf(randomUUID());

async function ledger(leads: number): Promise<string> {
  await db.pool.query(
    `INSERT INTO leads (id, project_id, email, email_normalized, subscription, tags, updated_at)
     SELECT gen_random_uuid(), $1, 'l' || g || '-' || $2 || '@example.com', 'l' || g || '-' || $2 || '@example.com',
            'subscribed', ARRAY[$2], now()
       FROM generate_series(1, $3::int) AS g`,
    [projectId, `t${leads}`, leads],
  );
  const id = randomUUID();
  const { inserted } = await withTransaction(db, (c) =>
    materialiseCampaign(c, {
      id,
      project_id: projectId,
      audience: { tags: [`t${leads}`] } as never,
      email_type: "marketing",
    }),
  );
  expect(inserted).toBe(leads);
  return id;
}

async function reltuples(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'campaign_recipients'::regclass",
  );
  return rows[0]!.n;
}

/** The planner's estimate of a campaign's pending rows: what the cycle's claim and its ledger update plan on. */
async function pendingEstimate(campaignId: string): Promise<number> {
  const { rows } = await db.pool.query<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
    `EXPLAIN (FORMAT JSON) SELECT id FROM campaign_recipients WHERE campaign_id = $1 AND status = 'pending'`,
    [campaignId],
  );
  return rows[0]!["QUERY PLAN"][0].Plan["Plan Rows"];
}

describe("the ledger's statistics after materialiseCampaign", () => {
  it("a small ledger into a table never analysed (a fresh database's first campaign) is analysed", async () => {
    await db.pool.query("TRUNCATE campaign_recipients");
    const id = await ledger(2_000);
    expect(await reltuples()).toBe(2_000);
    expect(await pendingEstimate(id)).toBeGreaterThan(1_000);
  });

  it("a ledger under autovacuum's threshold for the table as it is leaves it to autovacuum", async () => {
    // 2,000 rows analysed above: 100 more is under 50 + 10% of them
    await ledger(100);
    expect(await reltuples()).toBe(2_000);
  });
});
