import { defineConfig } from "prisma/config";

// The URL is only used by Prisma CLI commands; migrations run offline through scripts/migrate.ts.
export default defineConfig({
  schema: "prisma/schema",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/emailsvc" },
});
