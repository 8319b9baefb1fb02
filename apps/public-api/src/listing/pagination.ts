import type { Db } from "@emailsvc/db";

/** Counting stops here (or past the page asked for, if later): an exact count of 100 M rows is not affordable. */
export const COUNT_CAP = 10_000;

export interface Total {
  total: number;
  /** False when the count reached its cap and `total` is PostgreSQL's estimate (never below what was counted). */
  exact: boolean;
}

/**
 * The total of a listing: counted exactly up to max(COUNT_CAP, the rows up to the end of the asked page + 1), so
 * a count never costs more than reading the page itself (an OFFSET walks those rows anyway). Past that, the
 * planner's row estimate for the same filter stands in, at least the counted number. Listings below 10,000 rows
 * (and every test) get exact totals; the answer's `X-Total-Count-Exact: false` header tells when it is estimated.
 */
export async function countCapped(
  db: Db,
  fromWhere: string,
  params: unknown[],
  needRows: number,
): Promise<Total> {
  const cap = Math.max(COUNT_CAP, needRows + 1);
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${fromWhere} LIMIT ${cap}) c`,
    params,
  );
  const counted = rows[0]!.n;
  if (counted < cap) return { total: counted, exact: true };
  const plan = await db.pool.query<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>({
    text: `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${fromWhere}`,
    values: params,
  });
  const estimate = Math.round(plan.rows[0]!["QUERY PLAN"][0].Plan["Plan Rows"]);
  return { total: Math.max(counted, estimate), exact: false };
}

export function pagination(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
