-- Jobs whose message was lost are found and enqueued again (through the outbox) by the
-- workers' reconcilers; an infrastructure outage no longer uses up a job's attempts.
-- job_enqueued_at: when the upload's or evaluation's job was last enqueued (NULL: at
-- creation). ingest_attempts: how many times ingest began extracting the upload; its
-- budget counts only attempts that reached the file, never deliveries that met a
-- database or blob store outage.

-- +goose Up
ALTER TABLE uploads
    ADD COLUMN ingest_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN job_enqueued_at timestamptz;
ALTER TABLE evaluations ADD COLUMN job_enqueued_at timestamptz;
CREATE INDEX uploads_processing_idx ON uploads (created_at) WHERE upload_status = 'processing';

-- +goose Down
DROP INDEX uploads_processing_idx;
ALTER TABLE evaluations DROP COLUMN job_enqueued_at;
ALTER TABLE uploads DROP COLUMN ingest_attempts, DROP COLUMN job_enqueued_at;
