import fs from "node:fs";
import path from "node:path";

export const DB_PACKAGE_DIR = path.resolve(__dirname, "../..");
/** The schema is split by aggregate: every `.prisma` file in this folder (Prisma's multi-file schema). */
export const SCHEMA_PATH = path.join(DB_PACKAGE_DIR, "prisma", "schema");
export const MIGRATIONS_DIR = path.join(DB_PACKAGE_DIR, "prisma", "migrations");

/** The schema files at `schemaPath` (a folder of `.prisma` files, or one file), as [path, text] pairs. */
export function readSchemaFiles(schemaPath = SCHEMA_PATH): Array<[string, string]> {
  const files = fs.statSync(schemaPath).isDirectory()
    ? fs
        .readdirSync(schemaPath)
        .filter((f) => f.endsWith(".prisma"))
        .sort()
        .map((f) => path.join(schemaPath, f))
    : [schemaPath];
  return files.map((f) => [f, fs.readFileSync(f, "utf8")]);
}

export const emptyFilters = { externalTables: [], externalEnums: [] };

/** The engine's view of prisma/migrations, read from disk (directories sorted by their timestamp prefix). */
export function readMigrationsList(dir = MIGRATIONS_DIR) {
  const lockPath = path.join(dir, "migration_lock.toml");
  const dirs = fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
        .map((d) => d.name)
        .sort()
    : [];
  return {
    baseDir: dir,
    lockfile: {
      path: "migration_lock.toml",
      content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : null,
    },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok", value: fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8") },
      },
    })),
  };
}
