-- Evaluations of submissions, run by the evaluator.

-- +goose Up
CREATE TABLE evaluations (
    id                  uuid PRIMARY KEY,
    -- Order of creation within a submission: the highest is the latest evaluation, every
    -- other one is superseded (409 analysis_outdated).
    seq                 bigint NOT NULL GENERATED ALWAYS AS IDENTITY,
    submission_id       uuid NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    api_client_id       uuid NOT NULL REFERENCES api_clients (id),
    kind                text NOT NULL,
    status              text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'canceled')),
    stage_label         text NOT NULL,
    progress_percent    integer NOT NULL CHECK (progress_percent BETWEEN 0 AND 100),
    input_upload_ids    uuid[] NOT NULL,
    input_file_ids      uuid[] NOT NULL,
    failure_code        text,
    failure_message     text,
    result              jsonb,
    -- Deliveries of the job that began running it: a job that keeps killing its worker
    -- ends as failed instead of running forever.
    attempts            integer NOT NULL DEFAULT 0,
    -- When evaluation.progress was last emitted (throttled to one per second).
    progress_emitted_at timestamptz,
    created_at          timestamptz NOT NULL,
    started_at          timestamptz,
    finished_at         timestamptz,
    updated_at          timestamptz NOT NULL,
    CHECK ((status = 'completed') = (result IS NOT NULL)),
    CHECK ((status = 'failed') = (failure_code IS NOT NULL))
);
-- At most one evaluation is active per submission, whoever tries to start a second.
CREATE UNIQUE INDEX evaluations_one_active_idx ON evaluations (submission_id) WHERE status IN ('queued', 'running');
CREATE INDEX evaluations_submission_seq_idx ON evaluations (submission_id, seq DESC);
CREATE INDEX evaluations_active_idx ON evaluations (updated_at) WHERE status IN ('queued', 'running');

-- +goose Down
DROP TABLE evaluations;
