-- The ledger's campaign and status are correlated (a campaign's rows share a few statuses), which the planner,
-- estimating each column alone, cannot know: a running campaign's "queued, failed, skipped or cancelled" count
-- was estimated at a third of a 3,000,000-row table (cancelled rows of other campaigns) and ran as a parallel
-- sequential scan of all of it, 2 s every dispatch cycle. The combined most-common values fix the estimate.
-- (Prisma's schema has no way to declare extended statistics; the drift check does not see them.)
CREATE STATISTICS IF NOT EXISTS "campaign_recipients_campaign_status_stats" (mcv, dependencies)
  ON "campaign_id", "status" FROM "campaign_recipients";
