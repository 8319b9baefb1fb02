-- Index entries only for rows that have the value (issue 28: the rows each send writes). An activity is inserted
-- with no batch, scheduled send, Message-ID or provider id in most cases, and every one of those NULLs took an
-- entry in four indexes; a delivery that succeeded at its first attempt took one in the retry index. Every
-- query on these columns compares them with `=` (a NULL never matches), so each still uses its index.

-- DropIndex
DROP INDEX "activities_batch_id_idx";
DROP INDEX "activities_scheduled_send_id_idx";
DROP INDEX "activities_message_id_idx";
DROP INDEX "activities_provider_message_id_key";
DROP INDEX "webhook_deliveries_status_next_attempt_at_idx";

-- CreateIndex
CREATE INDEX "activities_batch_id_idx" ON "activities"("batch_id") WHERE "batch_id" IS NOT NULL;
CREATE INDEX "activities_scheduled_send_id_idx" ON "activities"("scheduled_send_id") WHERE "scheduled_send_id" IS NOT NULL;
CREATE INDEX "activities_message_id_idx" ON "activities"("message_id") WHERE "message_id" IS NOT NULL;
CREATE UNIQUE INDEX "activities_provider_message_id_key" ON "activities"("provider_message_id") WHERE "provider_message_id" IS NOT NULL;
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at") WHERE "status" IN ('pending', 'failed');
