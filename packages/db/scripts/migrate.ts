/**
 * Offline migrations (Prisma's WebAssembly schema engine; see src/migrations):
 *   tsx scripts/migrate.ts deploy          apply pending migrations to DATABASE_URL (creates the database)
 *   tsx scripts/migrate.ts create <name>   write the next migration from prisma/schema/
 *   tsx scripts/migrate.ts diff [schema]   exit 1 and print the SQL when schema and migrations differ
 */
import { createMigration, deployMigrations, diffMigrationsToSchema } from "../src/migrations";

async function main(): Promise<number> {
  const url = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/emailsvc";
  const [command, name] = process.argv.slice(2);
  const quiet = process.env.LOG_LEVEL === "warn" || process.env.LOG_LEVEL === "error";
  switch (command) {
    case "deploy": {
      const applied = await deployMigrations({ url });
      if (!quiet) console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
      return 0;
    }
    case "create": {
      if (!name) throw new Error("usage: migrate create <name>");
      const dir = await createMigration({ url, name });
      console.log(dir ? `created ${dir}` : "no changes: prisma/schema matches the migrations");
      return 0;
    }
    case "diff": {
      // optional: diff another schema file (the drift test uses it to prove a change is detected)
      const sql = await diffMigrationsToSchema({ url, ...(name ? { schemaPath: name } : {}) });
      if (!sql) {
        console.log("no drift");
        return 0;
      }
      console.log(sql);
      return 1;
    }
    default:
      console.error("usage: migrate deploy | create <name> | diff");
      return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
