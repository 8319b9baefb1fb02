import type { QueryResultRow } from "pg";
import type { Db } from "./create-db";

// The listings' pages (public-api's v1 lists and the admin API's): the caller builds the filter and the page's
// statement over its own table; counting, estimating and reading run here, on the service's Db.

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
  return { total: Math.max(counted, await estimateRows(db, fromWhere, params)), exact: false };
}

/**
 * One page of a listing and its total. A shallow page counts (countCapped) beside reading the page. A page whose
 * end lies past COUNT_CAP would make the count walk as many index entries as the page's OFFSET does, a second
 * time: there the page is read with one row more than it shows instead, and that row says whether more follow
 * (then the total is the planner's estimate, at least the rows up to it, as countCapped answers) or not (then it is
 * exact). Only a page past the end is counted. `pageSql(limit, offset)` is the page's statement over `params`.
 */
export async function listPage<R extends QueryResultRow>(
  db: Db,
  fromWhere: string,
  params: unknown[],
  q: { page: number; per_page: number },
  pageSql: (limit: number, offset: number) => string,
): Promise<{ rows: R[]; total: Total }> {
  const perPage = q.per_page;
  const offset = (q.page - 1) * perPage;
  const read = async (limit: number) => (await db.pool.query<R>(pageSql(limit, offset), params)).rows;
  if (offset + perPage < COUNT_CAP) {
    const [total, rows] = await Promise.all([
      countCapped(db, fromWhere, params, offset + perPage),
      read(perPage),
    ]);
    return { rows, total };
  }
  const rows = await read(perPage + 1);
  if (!rows.length) return { rows, total: await countCapped(db, fromWhere, params, offset + perPage) };
  if (rows.length <= perPage) return { rows, total: { total: offset + rows.length, exact: true } };
  const counted = offset + perPage + 1;
  return {
    rows: rows.slice(0, perPage),
    total: { total: Math.max(counted, await estimateRows(db, fromWhere, params)), exact: false },
  };
}

/** The planner's row estimate for the listing's filter (EXPLAIN: nothing is read). */
async function estimateRows(db: Db, fromWhere: string, params: unknown[]): Promise<number> {
  const plan = await db.pool.query<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>({
    text: `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${fromWhere}`,
    values: params,
  });
  return Math.round(plan.rows[0]!["QUERY PLAN"][0].Plan["Plan Rows"]);
}

/**
 * countCapped within a time budget, for a count a person waits on while typing (the segment builder's preview):
 * the capped count runs under `statement_timeout`, and a filter that would take longer (a selective condition
 * read over a million leads, an event count per lead) is answered by the planner's estimate instead, marked
 * inexact. The count never holds the page: at worst it costs `timeoutMs` and an EXPLAIN.
 */
export async function countCappedWithin(
  db: Db,
  fromWhere: string,
  params: unknown[],
  timeoutMs: number,
): Promise<Total> {
  const client = await db.pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    // SET LOCAL takes no bind parameter; timeoutMs is an integer of ours, never a client's
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`);
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${fromWhere} LIMIT ${COUNT_CAP}) c`,
      params,
    );
    await client.query("COMMIT");
    const counted = rows[0]!.n;
    if (counted < COUNT_CAP) return { total: counted, exact: true };
    return { total: Math.max(counted, await estimateRows(db, fromWhere, params)), exact: false };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => (broken = true));
    // 57014: query_canceled, here the statement_timeout
    if ((err as { code?: string }).code !== "57014") throw err;
    return { total: await estimateRows(db, fromWhere, params), exact: false };
  } finally {
    client.release(broken);
  }
}
