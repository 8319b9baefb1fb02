-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "webhook_url" TEXT,
    "webhook_url_dev" TEXT,
    "inbound_webhook_url" TEXT,
    "inbound_webhook_url_dev" TEXT,
    "default_timezone" TEXT,
    "total_sent" BIGINT NOT NULL DEFAULT 0,
    "template_seq" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_usage" (
    "project_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "live_sent" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "project_usage_pkey" PRIMARY KEY ("project_id","period")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "mode" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_ciphertext" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "active_mode" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sender_profiles" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "domain_id" UUID,
    "sender_name" TEXT NOT NULL,
    "sender_email" TEXT NOT NULL,
    "reply_email" TEXT,
    "email_verified" BOOLEAN NOT NULL DEFAULT false,
    "domain_authenticated" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "external_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sender_profiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "domain_identities" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "domain" TEXT NOT NULL,
    "domain_unicode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "domain_verified" BOOLEAN NOT NULL DEFAULT false,
    "dkim_verified" BOOLEAN NOT NULL DEFAULT false,
    "mail_from_verified" BOOLEAN NOT NULL DEFAULT false,
    "verification_token" TEXT NOT NULL,
    "dkim_tokens" TEXT[],
    "mail_from_domain" TEXT NOT NULL,
    "external_key" TEXT,
    "last_verified_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    "active_domain" TEXT,

    CONSTRAINT "domain_identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dns_records" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "domain_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "verified" BOOLEAN,

    CONSTRAINT "dns_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_identities" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "sender_email" TEXT NOT NULL,
    "verification_status" TEXT NOT NULL DEFAULT 'pending',
    "sender_profile_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "templates" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "internal_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "text" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "templates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_messages" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "source" TEXT NOT NULL,
    "email_type" TEXT NOT NULL DEFAULT 'transactional',
    "from_email" TEXT NOT NULL,
    "from_name" TEXT,
    "subject" TEXT NOT NULL,
    "html" TEXT NOT NULL,
    "text" TEXT,
    "cc" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "bcc" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "headers" JSONB,
    "attachments" JSONB,
    "template_id" UUID,
    "batch_id" UUID,
    "campaign_id" UUID,
    "automation_run_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "activities" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "email_message_id" UUID NOT NULL,
    "batch_id" UUID,
    "campaign_id" UUID,
    "scheduled_send_id" UUID,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "email_type" TEXT NOT NULL DEFAULT 'transactional',
    "recipient" TEXT NOT NULL,
    "data" JSONB,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "provider_message_id" TEXT,
    "reply_token" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimed_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "bounced_at" TIMESTAMPTZ(3),
    "complained_at" TIMESTAMPTZ(3),
    "opened_first_at" TIMESTAMPTZ(3),
    "clicked_first_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),
    "bounce_type" TEXT,
    "failure_reason" TEXT,
    "send_attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "activities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "email_events" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "activity_id" UUID,
    "type" TEXT NOT NULL,
    "provider_event_id" TEXT,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "payload" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scheduled_sends" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "status" TEXT NOT NULL DEFAULT 'scheduled',
    "scheduled_for" TIMESTAMPTZ(3) NOT NULL,
    "timezone" TEXT NOT NULL,
    "local_time" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "batch_id" UUID,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "claimed_at" TIMESTAMPTZ(3),
    "claimed_by" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scheduled_sends_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batches" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "total" INTEGER NOT NULL,
    "queued" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "email_type" TEXT NOT NULL DEFAULT 'marketing',
    "template_id" UUID,
    "scheduled_for" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "suppressions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "source_activity_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "suppressions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reply_tokens" (
    "token" TEXT NOT NULL,
    "project_id" UUID NOT NULL,
    "activity_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reply_tokens_pkey" PRIMARY KEY ("token")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "project_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_body" JSONB,
    "email_message_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("project_id","key")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "is_test" BOOLEAN NOT NULL,
    "url" TEXT,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "attempt_number" INTEGER NOT NULL,
    "status_code" INTEGER,
    "response_body" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_messages" (
    "id" UUID NOT NULL,
    "exchange" TEXT NOT NULL,
    "routing_key" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "headers" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "available_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "outbox_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_project_id_active_mode_key" ON "api_keys"("project_id", "active_mode");

-- CreateIndex
CREATE UNIQUE INDEX "sender_profiles_project_id_sender_email_key" ON "sender_profiles"("project_id", "sender_email");

-- CreateIndex
CREATE INDEX "domain_identities_project_id_domain_idx" ON "domain_identities"("project_id", "domain");

-- CreateIndex
CREATE UNIQUE INDEX "domain_identities_project_id_active_domain_key" ON "domain_identities"("project_id", "active_domain");

-- CreateIndex
CREATE INDEX "dns_records_project_id_domain_id_idx" ON "dns_records"("project_id", "domain_id");

-- CreateIndex
CREATE UNIQUE INDEX "email_identities_project_id_sender_email_key" ON "email_identities"("project_id", "sender_email");

-- CreateIndex
CREATE INDEX "templates_project_id_idx" ON "templates"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "templates_project_id_internal_id_key" ON "templates"("project_id", "internal_id");

-- CreateIndex
CREATE INDEX "email_messages_project_id_created_at_idx" ON "email_messages"("project_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "activities_provider_message_id_key" ON "activities"("provider_message_id");

-- CreateIndex
CREATE INDEX "activities_project_id_created_at_idx" ON "activities"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "activities_batch_id_idx" ON "activities"("batch_id");

-- CreateIndex
CREATE INDEX "activities_email_message_id_idx" ON "activities"("email_message_id");

-- CreateIndex
CREATE INDEX "activities_scheduled_send_id_idx" ON "activities"("scheduled_send_id");

-- CreateIndex
CREATE INDEX "activities_status_claimed_at_idx" ON "activities"("status", "claimed_at");

-- CreateIndex
CREATE UNIQUE INDEX "email_events_provider_event_id_key" ON "email_events"("provider_event_id");

-- CreateIndex
CREATE INDEX "email_events_activity_id_idx" ON "email_events"("activity_id");

-- CreateIndex
CREATE INDEX "email_events_project_id_created_at_idx" ON "email_events"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "scheduled_sends_status_scheduled_for_idx" ON "scheduled_sends"("status", "scheduled_for");

-- CreateIndex
CREATE INDEX "scheduled_sends_project_id_created_at_idx" ON "scheduled_sends"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "batches_project_id_created_at_idx" ON "batches"("project_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "suppressions_project_id_email_key" ON "suppressions"("project_id", "email");

-- CreateIndex
CREATE INDEX "reply_tokens_activity_id_idx" ON "reply_tokens"("activity_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_project_id_created_at_idx" ON "webhook_deliveries"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_event_id_kind_key" ON "webhook_deliveries"("event_id", "kind");

-- CreateIndex
CREATE INDEX "webhook_attempts_delivery_id_idx" ON "webhook_attempts"("delivery_id");

-- CreateIndex
CREATE INDEX "outbox_messages_published_at_available_at_idx" ON "outbox_messages"("published_at", "available_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dns_records" ADD CONSTRAINT "dns_records_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domain_identities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activities" ADD CONSTRAINT "activities_email_message_id_fkey" FOREIGN KEY ("email_message_id") REFERENCES "email_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
