-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "webhook_dev_failing_since" TIMESTAMPTZ(3),
ADD COLUMN     "webhook_failing_since" TIMESTAMPTZ(3);
