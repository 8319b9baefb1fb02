export { createMigration, deployMigrations, diffMigrationsToSchema, type MigrateOptions } from "./commands";
export { MIGRATIONS_DIR, SCHEMA_PATH } from "./migrations-dir";
