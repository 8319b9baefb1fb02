-- Per-project overrides of the send limits (issue 49 item 5): requests a minute per API key on the send and
-- domain routes, and emails a UTC day, test sends included. NULL keeps the deployment's defaults.

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "daily_send_cap" INTEGER,
ADD COLUMN     "send_rate_limit" INTEGER;
