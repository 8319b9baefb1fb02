import fs from "node:fs";
import path from "node:path";

export const DB_PACKAGE_DIR = path.resolve(__dirname, "../..");
export const SCHEMA_PATH = path.join(DB_PACKAGE_DIR, "prisma", "schema.prisma");
export const MIGRATIONS_DIR = path.join(DB_PACKAGE_DIR, "prisma", "migrations");

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
