-- DropIndex
DROP INDEX "email_events_project_id_created_at_idx";

-- No query reads email_events by (project_id, created_at), and every open-pixel and click hit inserts a row here:
-- the index only cost each of those inserts a b-tree write.
