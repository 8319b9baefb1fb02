-- CreateTable
CREATE TABLE "import_jobs" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "file_name" TEXT NOT NULL,
    "format" TEXT,
    "storage_key" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL DEFAULT 0,
    "file_info" JSONB NOT NULL DEFAULT '{}',
    "columns" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "options" JSONB NOT NULL DEFAULT '{}',
    "mapping" JSONB NOT NULL DEFAULT '[]',
    "total_rows" INTEGER,
    "processed_rows" INTEGER NOT NULL DEFAULT 0,
    "created_count" INTEGER NOT NULL DEFAULT 0,
    "updated_count" INTEGER NOT NULL DEFAULT 0,
    "skipped_count" INTEGER NOT NULL DEFAULT 0,
    "duplicate_count" INTEGER NOT NULL DEFAULT 0,
    "invalid_count" INTEGER NOT NULL DEFAULT 0,
    "suppressed_count" INTEGER NOT NULL DEFAULT 0,
    "failure_reason" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "triggered_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "import_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_rejected_rows" (
    "job_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "line" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "cells" TEXT[],

    CONSTRAINT "import_rejected_rows_pkey" PRIMARY KEY ("job_id","line")
);

-- CreateIndex
CREATE INDEX "import_jobs_project_id_created_at_idx" ON "import_jobs"("project_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "import_jobs_status_triggered_at_idx" ON "import_jobs"("status", "triggered_at");

-- AddForeignKey
ALTER TABLE "import_rejected_rows" ADD CONSTRAINT "import_rejected_rows_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
