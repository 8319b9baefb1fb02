import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import { Client, Pool, type PoolClient, type QueryResult, type QueryResultRow } from "pg";
import { PrismaClient } from "./generated/prisma/client";

/** Distinct statement texts this process prepares at most; past it, further texts run unnamed as before. */
const MAX_PREPARED = 500;
const statementNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED) {
    name = "s_" + createHash("sha1").update(text).digest("hex").slice(0, 20);
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A pg client that runs every parameterised raw-SQL statement (`query(text, values)`) as a named prepared
 * statement: PostgreSQL parses and plans it once per connection instead of on every call. On the hot paths
 * (the send accept, the worker's claim, a notification's one statement) planning cost as much as executing.
 * Calls with a config object (Prisma's adapter) and calls without values (BEGIN, COMMIT) are left as they are;
 * the name is a hash of the text, so two texts never share a name.
 */
class PreparingClient extends Client {
  constructor(config?: ConstructorParameters<typeof Client>[0]) {
    super(config);
    // A connection that drops while its client is checked out (a session held between statements, a transaction
    // between two of them) emits 'error' on the client, where the pool's idle listener no longer is: unheard, it
    // ended the process. bench/chaos's PostgreSQL restart killed send-worker and campaign-dispatcher that way
    // (issue 47). The holder still learns it: the client's next query fails, and the pool discards it on release.
    this.on("error", () => undefined);
  }

  // pg's overloads are many; only the (text, values[, callback]) shape is rewritten.
  override query(...args: unknown[]): never {
    const [text, values] = args;
    if (typeof text === "string" && Array.isArray(values)) {
      const name = statementName(text);
      if (name) args = [{ name, text, values }, ...args.slice(2)];
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/**
 * For batch statements over a growing table (`id = ANY($1)`, joins to `unnest(…)`), on a Db made with
 * `planEachCall`: PostgreSQL plans the statement for these values and the table as it is now on every call, and
 * parses it once per connection. A plain named statement settles on a generic plan after five executions and
 * keeps it for the connection's life: one made while the table was small (a fresh database, autovacuum off or
 * not yet run) is a sequential scan that every later batch pays in full as the table grows. An unnamed statement
 * avoids that but is parsed every time too: on the send-worker's three statements PostgreSQL logged 0.14 ms
 * parse, 0.17 ms bind (planning) and 0.13 ms execute per call. Without `planEachCall` it runs unnamed.
 */
export function queryPlanned<R extends QueryResultRow = QueryResultRow>(
  db: Pick<Db, "pool" | "planEachCall">,
  text: string,
  values: unknown[],
): Promise<QueryResult<R>> {
  return db.planEachCall ? db.pool.query<R>(text, values) : db.pool.query<R>({ text, values });
}

export interface Db {
  prisma: PrismaClient;
  /** The same pool Prisma uses: raw SQL on hot paths shares its connections. */
  pool: Pool;
  /** Its connections plan every named statement for each call's values (`queryPlanned`). */
  planEachCall?: boolean;
  close(): Promise<void>;
}

/** Builds the client a service passes down (no global client: STYLE.md). */
export function createDb(url: string, opts: { max?: number; planEachCall?: boolean } = {}): Db {
  const pool = new Pool({
    connectionString: url,
    max: opts.max ?? 10,
    Client: PreparingClient,
    // A connection's prepared statements keep the generic plans they settled on; one made while a table was
    // small (a fresh database, no ANALYZE yet) would scan it sequentially for as long as the connection lives.
    // Retiring connections after a few minutes bounds that: the next one plans for the tables as they are.
    maxLifetimeSeconds: 300,
    // No JIT: it compiles a statement whose estimated cost is high, which on these short statements cost more
    // than it saved (2 s of compiling for one 4 s count; seconds more whenever an estimate is off).
    // Parsed once, planned every time (planEachCall): for a service whose hot statements are batches over
    // growing tables.
    options: opts.planEachCall ? "-c jit=off -c plan_cache_mode=force_custom_plan" : "-c jit=off",
  });
  // An idle client erroring (e.g. the database restarting) must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    planEachCall: opts.planEachCall ?? false,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** A connection a statement runs on: the pool, or the client of a transaction. */
export type Queryable = Pick<Pool | PoolClient, "query">;

/**
 * What a repository function runs on: the service's `Db` (apps hold nothing else: they never see the pool), or
 * the client of a transaction the statement takes part in.
 */
export type DbOrClient = Db | Queryable;

/** The connection of a `DbOrClient`: a Db's pool, or the client itself. */
export function connOf(on: DbOrClient): Queryable {
  return "pool" in on ? on.pool : on;
}

/**
 * A connection of its own for a long session (session advisory locks, parallel writers): the caller releases it.
 * Apps get one here rather than from the pool, which only this package touches.
 */
export function connectSession(db: Db): Promise<PoolClient> {
  return db.pool.connect();
}

/**
 * Runs `fn` in one SQL transaction on a pooled connection (raw-SQL hot paths). Apps pass their `Db`; code in
 * this package may pass the pool itself.
 */
export async function withTransaction<T>(on: Db | Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await ("pool" in on ? on.pool : on).connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
