-- The console's review queue finds a submission by its display id or its external
-- submission id across the clients an operator sees (QueueSearch). The unique indexes
-- lead with api_client_id, so for an operator of every client the search read the whole
-- table (85 ms at 300,000 submissions); with these it reads two index entries (BitmapOr).
-- Built concurrently (outside a transaction), so the migration hook does not hold writes
-- to submissions while the old pods still serve; IF NOT EXISTS lets a retried migration
-- pass over an index a first run finished.

-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX CONCURRENTLY IF NOT EXISTS submissions_display_id_idx ON submissions (display_id);
CREATE INDEX CONCURRENTLY IF NOT EXISTS submissions_external_id_idx ON submissions (external_submission_id);

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS submissions_external_id_idx;
DROP INDEX CONCURRENTLY IF EXISTS submissions_display_id_idx;
