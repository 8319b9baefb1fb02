-- The recipient index of sends that left (20261129030000) keyed its predicate on provider_message_id IS NOT NULL,
-- which every lookup by provider id implies: on a small or fresh table the planner could pick it for those
-- lookups, a walk of every sent row, instead of the provider id's own unique index. sent_at, set by the same
-- UPDATE that records the provider id, says the same and no other lookup implies it.
DROP INDEX IF EXISTS "activities_recipient_sent_idx";
CREATE INDEX "activities_recipient_sent_idx" ON "activities"(lower("recipient"), "created_at") WHERE "sent_at" IS NOT NULL;
