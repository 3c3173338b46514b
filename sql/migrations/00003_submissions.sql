-- Submissions, their document slots and uploads, and the text ingest extracts.

-- +goose Up
CREATE TABLE submissions (
    id                     uuid PRIMARY KEY,
    api_client_id          uuid NOT NULL REFERENCES api_clients (id),
    display_id             text NOT NULL,
    external_submission_id text NOT NULL CHECK (length(external_submission_id) BETWEEN 1 AND 255),
    template_id            text NOT NULL,
    -- The template as it was at creation (store.Snapshot), never changed afterwards.
    snapshot               jsonb NOT NULL,
    language               text NOT NULL,
    metadata               jsonb NOT NULL,
    status                 text NOT NULL CHECK (status IN ('collecting_documents', 'evaluating', 'completed', 'failed', 'canceled')),
    -- Set by DELETE: reads answer 409 until the purge job removes the row.
    purge_requested_at     timestamptz,
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    UNIQUE (api_client_id, external_submission_id),
    UNIQUE (api_client_id, display_id)
);
CREATE INDEX submissions_list_idx ON submissions (api_client_id, created_at DESC, id DESC);
CREATE INDEX submissions_status_idx ON submissions (api_client_id, status, created_at DESC, id DESC);

CREATE TABLE document_slots (
    id                   uuid PRIMARY KEY,
    submission_id        uuid NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    position             integer NOT NULL,
    key                  text NOT NULL,
    label                text NOT NULL,
    description          text NOT NULL,
    document_type_id     text NOT NULL,
    required             boolean NOT NULL,
    allow_multiple_files boolean NOT NULL,
    -- extra: added by the submission's extra_document_requirements, not the template.
    extra                boolean NOT NULL,
    status               text NOT NULL,
    updated_at           timestamptz NOT NULL,
    UNIQUE (submission_id, position),
    UNIQUE (submission_id, key)
);

CREATE TABLE uploads (
    id                uuid PRIMARY KEY,
    submission_id     uuid NOT NULL REFERENCES submissions (id) ON DELETE CASCADE,
    api_client_id     uuid NOT NULL REFERENCES api_clients (id),
    external_file_id  text NOT NULL CHECK (length(external_file_id) BETWEEN 1 AND 255),
    file_id           uuid NOT NULL UNIQUE,
    document_slot_id  uuid REFERENCES document_slots (id),
    filename          text NOT NULL,
    content_type      text NOT NULL,
    size_bytes        bigint NOT NULL,
    sha256            bytea NOT NULL,
    blob_key          text NOT NULL,
    upload_status     text NOT NULL CHECK (upload_status IN ('processing', 'ready', 'failed')),
    failure_code      text,
    failure_message   text,
    page_count        integer,
    metadata          jsonb,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    UNIQUE (submission_id, external_file_id)
);
CREATE INDEX uploads_submission_created_idx ON uploads (submission_id, created_at DESC, id DESC);
CREATE INDEX uploads_slot_idx ON uploads (document_slot_id) WHERE document_slot_id IS NOT NULL;

-- Text per page, written by ingest, read by the evaluator.
CREATE TABLE upload_pages (
    upload_id      uuid NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
    page           integer NOT NULL,
    text           text NOT NULL,
    chars          integer NOT NULL,
    ocr            boolean NOT NULL,
    ocr_confidence double precision,
    PRIMARY KEY (upload_id, page)
);

-- +goose Down
DROP TABLE upload_pages;
DROP TABLE uploads;
DROP TABLE document_slots;
DROP TABLE submissions;
