-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "on_send_unknown" TEXT NOT NULL DEFAULT 'resend';

-- CreateTable
CREATE TABLE "send_claims" (
    "activity_id" UUID NOT NULL,
    "project_id" UUID,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "send_claims_pkey" PRIMARY KEY ("activity_id")
);

-- CreateIndex
CREATE INDEX "send_claims_claimed_at_idx" ON "send_claims"("claimed_at");

-- Claims made before this migration (a worker died holding them): the reconciler finds them too.
INSERT INTO "send_claims" ("activity_id", "project_id", "claimed_at")
SELECT "id", "project_id", COALESCE("claimed_at", "updated_at") FROM "activities" WHERE "status" = 'sending'
ON CONFLICT DO NOTHING;
