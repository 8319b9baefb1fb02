-- A project may scope its test keys to test data (issue 49): threads, replies and scheduled sends of test sends.
-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "test_keys_test_data_only" BOOLEAN NOT NULL DEFAULT false;
