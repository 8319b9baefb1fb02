-- Published rows are deleted from now on; the ones already published go first, or dropping the column would
-- make them look unpublished and the relay would send them again.
DELETE FROM "outbox_messages" WHERE "published_at" IS NOT NULL;

-- DropIndex
DROP INDEX "outbox_messages_published_at_available_at_idx";

-- AlterTable
ALTER TABLE "outbox_messages" DROP COLUMN "published_at";

-- CreateIndex
CREATE INDEX "outbox_messages_created_at_idx" ON "outbox_messages"("created_at");
