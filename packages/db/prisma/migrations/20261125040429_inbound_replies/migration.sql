-- AlterTable
ALTER TABLE "activities" ADD COLUMN     "message_id" TEXT;

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "inbound_webhook_dev_failing_since" TIMESTAMPTZ(3),
ADD COLUMN     "inbound_webhook_failing_since" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "inbound_notifications" (
    "id" UUID NOT NULL,
    "sns_message_id" TEXT NOT NULL,
    "topic_arn" TEXT NOT NULL,
    "ses_message_id" TEXT NOT NULL,
    "action_type" TEXT NOT NULL,
    "bucket_name" TEXT,
    "object_key" TEXT,
    "content" TEXT,
    "recipients" TEXT[],
    "source" TEXT,
    "verdicts" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'received',
    "inbound_message_id" UUID,
    "size" INTEGER,
    "error" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "inbound_notifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbound_messages" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "thread_id" UUID,
    "activity_id" UUID,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "dedupe_key" TEXT NOT NULL,
    "ses_message_id" TEXT NOT NULL,
    "message_id" TEXT,
    "in_reply_to" TEXT,
    "references" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "from_email" TEXT NOT NULL,
    "from_name" TEXT,
    "to" JSONB NOT NULL DEFAULT '[]',
    "cc" JSONB NOT NULL DEFAULT '[]',
    "recipient" TEXT NOT NULL,
    "subject" TEXT NOT NULL DEFAULT '',
    "text_body" TEXT NOT NULL DEFAULT '',
    "html_body" TEXT NOT NULL DEFAULT '',
    "reply_text" TEXT NOT NULL DEFAULT '',
    "sent_at" TIMESTAMPTZ(3),
    "kind" TEXT NOT NULL DEFAULT 'reply',
    "matched_by" TEXT,
    "return_path_parsed" JSONB,
    "verdicts" JSONB NOT NULL DEFAULT '{}',
    "suspicious" BOOLEAN NOT NULL DEFAULT false,
    "forward" TEXT NOT NULL,
    "raw_key" TEXT,
    "raw" TEXT,
    "size" INTEGER NOT NULL,
    "webhook_body" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbound_threads" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "activity_id" UUID,
    "email_message_id" UUID,
    "campaign_id" UUID,
    "outbound_message_id" TEXT,
    "email_type" TEXT,
    "is_test" BOOLEAN NOT NULL DEFAULT false,
    "subject" TEXT NOT NULL DEFAULT '',
    "normalized_subject" TEXT NOT NULL,
    "participants" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "message_count" INTEGER NOT NULL DEFAULT 0,
    "last_message_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_threads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbound_attachments" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "inbound_message_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "filename" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "storage_key" TEXT NOT NULL,

    CONSTRAINT "inbound_attachments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "inbound_notifications_sns_message_id_key" ON "inbound_notifications"("sns_message_id");

-- CreateIndex
CREATE INDEX "inbound_notifications_status_received_at_idx" ON "inbound_notifications"("status", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "inbound_messages_dedupe_key_key" ON "inbound_messages"("dedupe_key");

-- CreateIndex
CREATE INDEX "inbound_messages_thread_id_received_at_idx" ON "inbound_messages"("thread_id", "received_at");

-- CreateIndex
CREATE INDEX "inbound_messages_project_id_received_at_idx" ON "inbound_messages"("project_id", "received_at");

-- CreateIndex
CREATE INDEX "inbound_threads_project_id_last_message_at_id_idx" ON "inbound_threads"("project_id", "last_message_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "inbound_threads_project_id_campaign_id_idx" ON "inbound_threads"("project_id", "campaign_id");

-- CreateIndex
CREATE INDEX "inbound_threads_normalized_subject_last_message_at_idx" ON "inbound_threads"("normalized_subject", "last_message_at");

-- CreateIndex
CREATE UNIQUE INDEX "inbound_threads_project_id_activity_id_key" ON "inbound_threads"("project_id", "activity_id");

-- CreateIndex
CREATE INDEX "inbound_attachments_inbound_message_id_idx" ON "inbound_attachments"("inbound_message_id");

-- CreateIndex
CREATE INDEX "activities_message_id_idx" ON "activities"("message_id");

-- AddForeignKey
ALTER TABLE "inbound_attachments" ADD CONSTRAINT "inbound_attachments_inbound_message_id_fkey" FOREIGN KEY ("inbound_message_id") REFERENCES "inbound_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
