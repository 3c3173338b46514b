-- Deletion that finishes: a purge whose message was lost is enqueued again by ingest's
-- reconciler, and ingest's sweep removes stored objects no row references.
-- purge_enqueued_at: when the submission's purge job was last enqueued again (NULL: only
-- with the purge request, purge_requested_at). The partial index finds the purges that
-- wait; the index on blob_key answers the sweep's "does a row name this object?".

-- +goose Up
ALTER TABLE submissions ADD COLUMN purge_enqueued_at timestamptz;
CREATE INDEX submissions_purging_idx ON submissions (purge_requested_at) WHERE purge_requested_at IS NOT NULL;
CREATE INDEX uploads_blob_key_idx ON uploads (blob_key);

-- +goose Down
DROP INDEX uploads_blob_key_idx;
DROP INDEX submissions_purging_idx;
ALTER TABLE submissions DROP COLUMN purge_enqueued_at;
