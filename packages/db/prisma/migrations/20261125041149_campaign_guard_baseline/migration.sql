-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "guard_baseline" JSONB;
