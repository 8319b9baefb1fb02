import { PrismaPg } from "@prisma/adapter-pg";
import { Pool, type PoolClient } from "pg";
import { PrismaClient } from "./generated/prisma/client";

export interface Db {
  prisma: PrismaClient;
  /** The same pool Prisma uses: raw SQL on hot paths shares its connections. */
  pool: Pool;
  close(): Promise<void>;
}

/** Builds the client a service passes down (no global client: STYLE.md). */
export function createDb(url: string, opts: { max?: number } = {}): Db {
  const pool = new Pool({ connectionString: url, max: opts.max ?? 10 });
  // An idle client erroring (e.g. the database restarting) must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** Runs `fn` in one SQL transaction on a pooled connection (raw-SQL hot paths). */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
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
