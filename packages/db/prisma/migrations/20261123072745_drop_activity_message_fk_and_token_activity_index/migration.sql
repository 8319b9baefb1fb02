-- DropForeignKey
ALTER TABLE "activities" DROP CONSTRAINT "activities_email_message_id_fkey";

-- DropIndex
DROP INDEX "reply_tokens_activity_id_idx";
