export * from "./api-keys";
export * from "./batcher";
export * from "./create-db";
export * from "./outbox";
export * from "./time-ordered-uuid";
export * from "./generated/prisma/client";
export { createMigration, deployMigrations, diffMigrationsToSchema } from "./migrations";
export * from "./sender-verified-sql";
// The driver types a repository signature may name (only packages/db imports pg itself).
export type { Pool, PoolClient, QueryResultRow } from "pg";
export * from "./activity-status";
export * from "./quota";
export * from "./activities.repo";
export * from "./leads";
export * from "./campaigns";
export * from "./imports";
export * from "./unsubscribe.repo";
export * from "./shop";
export * from "./scheduled-sends.repo";
