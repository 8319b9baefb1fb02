-- The dashboard's activity search by recipient (issue 45) read the project's whole (project_id, created_at) range:
-- the recipient index covered only sends that left (WHERE sent_at IS NOT NULL), and the search must also find the
-- queued, scheduled and failed ones ("why did bob not get it?"). bench/dashboard measured a recipient's page of a
-- 2,000,000-activity project at seconds. One index over every activity replaces it: an INSERT now writes an entry
-- here, and the inbound subject rule (sent_at IS NOT NULL as a filter over a recipient's few rows) reads it as
-- before. Neither column changes after the INSERT, so outcome and tracking updates stay HOT.
DROP INDEX IF EXISTS "activities_recipient_sent_idx";
CREATE INDEX "activities_recipient_idx" ON "activities"(lower("recipient"), "created_at");
