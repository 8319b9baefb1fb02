import { randomUUID } from "node:crypto";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

/*
 * The schema engine talks to PostgreSQL through @prisma/adapter-pg 7.10.1, which needs three mends for
 * migrations (TOOLCHAIN.md): introspection meets the pg type "char" (oid 18) that the adapter cannot map,
 * the shadow database connection must not carry a connectionString (it would override `database`), and the
 * shadow pool must be closed before its database is dropped. A fourth: its executeScript splits a migration on
 * every `;`, which breaks dollar-quoted function bodies; the script goes to PostgreSQL whole instead (the simple
 * query protocol runs several statements, in one implicit transaction).
 */

// The same `pg` module instance adapter-pg uses (pnpm may give it its own copy).
const pg = require(
  require.resolve("pg", { paths: [path.dirname(require.resolve("@prisma/adapter-pg"))] }),
) as typeof import("pg");

let charPatched = false;
function mapCharToText(): void {
  if (charPatched) return;
  charPatched = true;
  const proto = (
    pg as unknown as {
      Query: { prototype: { handleRowDescription(msg: { fields: { dataTypeID: number }[] }): void } };
    }
  ).Query.prototype;
  const original = proto.handleRowDescription;
  proto.handleRowDescription = function (msg) {
    for (const f of msg.fields) if (f.dataTypeID === 18) f.dataTypeID = 25;
    return original.call(this, msg);
  };
}

export interface PgConnectionFields {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

export function connectionFields(url: string): PgConnectionFields {
  const u = new URL(url);
  return {
    host: decodeURIComponent(u.hostname) || "127.0.0.1",
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || "postgres"),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres",
  };
}

type Adapter = Awaited<ReturnType<PrismaPg["connect"]>>;

function wholeScripts(adapter: Adapter): Adapter {
  const inner = adapter as unknown as {
    client: { query(sql: string): Promise<unknown> };
    onError(err: unknown): never;
  };
  adapter.executeScript = async (script: string) => {
    try {
      await inner.client.query(script);
    } catch (err) {
      inner.onError(err);
    }
  };
  return adapter;
}

class MigrationPgFactory extends PrismaPg {
  constructor(private readonly fields: PgConnectionFields) {
    super({ ...fields, max: 2 });
  }

  override async connect() {
    return wholeScripts(await super.connect());
  }

  override async connectToShadowDb() {
    const admin = await this.connect();
    const database = `prisma_migrate_shadow_db_${randomUUID().replace(/-/g, "")}`;
    await admin.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = wholeScripts(await new PrismaPg({ ...this.fields, database, max: 2 }).connect());
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose(); // close the shadow pool first, then drop its database
      await admin.executeScript(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.dispose();
    };
    return shadow;
  }
}

export function migrationAdapterFactory(url: string) {
  mapCharToText();
  return bindMigrationAwareSqlAdapterFactory(new MigrationPgFactory(connectionFields(url)));
}

/** Creates the target database when it does not exist (fresh machines, `pnpm start`). */
export async function ensureDatabase(url: string): Promise<void> {
  const fields = connectionFields(url);
  const client = new pg.Client({ ...fields, database: "postgres" });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [fields.database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${fields.database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}
