-- The subject rule of inbound threading (spec 4.9 step 3e) also matches the first reply to a send, which has no
-- thread yet: it looks up the recent sends to the reply's sender. Only sends the provider accepted are indexed, so
-- an activity's INSERT writes no entry here (its provider id is set later, by an UPDATE that already writes the
-- provider id's own index), and a send that never left is never a candidate. The dashboard's activity search by
-- recipient reads it too.
CREATE INDEX "activities_recipient_sent_idx" ON "activities"(lower("recipient"), "created_at") WHERE "provider_message_id" IS NOT NULL;
