-- The console's review queue finds a submission by its display id or its external
-- submission id across the clients an operator sees (QueueSearch). The unique indexes
-- lead with api_client_id, so for an operator of every client the search read the whole
-- table (85 ms at 300,000 submissions); with these it reads two index entries (BitmapOr).

-- +goose Up
CREATE INDEX submissions_display_id_idx ON submissions (display_id);
CREATE INDEX submissions_external_id_idx ON submissions (external_submission_id);

-- +goose Down
DROP INDEX submissions_external_id_idx;
DROP INDEX submissions_display_id_idx;
