-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "auto_leads_subscribed" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "leads" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "email_normalized" TEXT NOT NULL,
    "first_name" TEXT,
    "last_name" TEXT,
    "phone" TEXT,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "subscription" TEXT NOT NULL DEFAULT 'unknown',
    "subscription_changed_at" TIMESTAMPTZ(3),
    "subscription_source" TEXT,
    "source" TEXT NOT NULL DEFAULT 'api',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "segments" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "filter" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "segments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "segment_members" (
    "segment_id" UUID NOT NULL,
    "lead_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "segment_members_pkey" PRIMARY KEY ("segment_id","lead_id")
);

-- CreateTable
CREATE TABLE "lead_events" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "lead_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "idempotency_key" TEXT,

    CONSTRAINT "lead_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "leads_project_id_created_at_id_idx" ON "leads"("project_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "leads_tags_idx" ON "leads" USING GIN ("tags");

-- CreateIndex
CREATE UNIQUE INDEX "leads_project_id_email_normalized_key" ON "leads"("project_id", "email_normalized");

-- CreateIndex
CREATE UNIQUE INDEX "segments_project_id_name_key" ON "segments"("project_id", "name");

-- CreateIndex
CREATE INDEX "segment_members_project_id_lead_id_idx" ON "segment_members"("project_id", "lead_id");

-- CreateIndex
CREATE INDEX "lead_events_project_id_occurred_at_id_idx" ON "lead_events"("project_id", "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "lead_events_project_id_lead_id_occurred_at_id_idx" ON "lead_events"("project_id", "lead_id", "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "lead_events_project_id_name_occurred_at_id_idx" ON "lead_events"("project_id", "name", "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "lead_events_project_id_idempotency_key_key" ON "lead_events"("project_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "segment_members" ADD CONSTRAINT "segment_members_segment_id_fkey" FOREIGN KEY ("segment_id") REFERENCES "segments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "segment_members" ADD CONSTRAINT "segment_members_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "leads"("id") ON DELETE CASCADE ON UPDATE CASCADE;
