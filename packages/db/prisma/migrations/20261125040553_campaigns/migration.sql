-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "postal_address" TEXT;

-- CreateTable
CREATE TABLE "campaigns" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'initializing',
    "status_reason" TEXT,
    "status_cause" TEXT,
    "rate_limited_until" TIMESTAMPTZ(3),
    "subject" TEXT NOT NULL,
    "html" TEXT,
    "text" TEXT,
    "template_id" UUID,
    "from_email" TEXT NOT NULL,
    "from_name" TEXT,
    "reply_to" TEXT,
    "email_type" TEXT NOT NULL DEFAULT 'marketing',
    "audience" JSONB NOT NULL,
    "start_at" TIMESTAMPTZ(3),
    "batch_size" INTEGER,
    "batch_interval_hours" DOUBLE PRECISION,
    "send_over_hours" DOUBLE PRECISION,
    "total_recipients" INTEGER NOT NULL DEFAULT 0,
    "excluded" JSONB,
    "dispatched" INTEGER NOT NULL DEFAULT 0,
    "current_batch" INTEGER NOT NULL DEFAULT 0,
    "next_dispatch_at" TIMESTAMPTZ(3),
    "last_dispatch_at" TIMESTAMPTZ(3),
    "duplicated_from" UUID,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaigns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaign_recipients" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "campaign_id" UUID NOT NULL,
    "lead_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "reason" TEXT,
    "dispatched_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3),

    CONSTRAINT "campaign_recipients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "domain_warmups" (
    "project_id" UUID NOT NULL,
    "domain" TEXT NOT NULL,
    "ramp" INTEGER[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "domain_warmups_pkey" PRIMARY KEY ("project_id","domain")
);

-- CreateTable
CREATE TABLE "domain_send_days" (
    "project_id" UUID NOT NULL,
    "domain" TEXT NOT NULL,
    "day" INTEGER NOT NULL,
    "dispatched" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "domain_send_days_pkey" PRIMARY KEY ("project_id","domain","day")
);

-- CreateIndex
CREATE INDEX "campaigns_project_id_created_at_idx" ON "campaigns"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "campaigns_status_next_dispatch_at_idx" ON "campaigns"("status", "next_dispatch_at");

-- CreateIndex
CREATE INDEX "campaign_recipients_campaign_id_status_id_idx" ON "campaign_recipients"("campaign_id", "status", "id");

-- CreateIndex
CREATE UNIQUE INDEX "campaign_recipients_campaign_id_lead_id_key" ON "campaign_recipients"("campaign_id", "lead_id");

-- A campaign recipient follows its activity (spec 3: queued → sent → delivered → opened → clicked, or bounced,
-- complained; ours add failed and cancelled). The ledger row's id is the activity's id. One trigger instead of a
-- ledger update in every statement that moves an activity (send-worker, notification-ingest, reconciler, cancels):
-- a new writer cannot forget it. It fires only for campaign activities whose status changed (the WHEN clause), so
-- other sends pay nothing; `sending` and a claim given back (`queued`) leave the recipient `queued`.
CREATE FUNCTION campaign_recipient_follows_activity() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_status text := CASE WHEN NEW.status IN ('queued', 'sending', 'scheduled') THEN 'queued' ELSE NEW.status END;
BEGIN
  UPDATE campaign_recipients SET status = next_status, updated_at = now()
   WHERE id = NEW.id AND status <> next_status;
  RETURN NULL;
END $$;

CREATE TRIGGER activities_campaign_recipient_status
  AFTER UPDATE OF status ON activities
  FOR EACH ROW WHEN (NEW.campaign_id IS NOT NULL AND NEW.status IS DISTINCT FROM OLD.status)
  EXECUTE FUNCTION campaign_recipient_follows_activity();
