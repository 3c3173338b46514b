-- Idempotency-Key on every POST, and the forward event feed (listEventFeed).

-- +goose Up
-- The first response to an Idempotency-Key, per API client, kept until expires_at.
-- state 'running' while the first request is handled (a repeat is 409
-- idempotency_key_in_use); request_hash fingerprints method, path and body.
CREATE TABLE idempotency_keys (
    api_client_id         uuid NOT NULL REFERENCES api_clients (id),
    key                   text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    state                 text NOT NULL CHECK (state IN ('running', 'done')),
    request_hash          bytea,
    response_status       integer,
    response_content_type text,
    response_body         bytea,
    created_at            timestamptz NOT NULL,
    expires_at            timestamptz NOT NULL,
    PRIMARY KEY (api_client_id, key),
    CHECK ((state = 'done') = (response_status IS NOT NULL AND request_hash IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

-- The feed reads events in the order their transactions can no longer be overtaken:
-- tx is the writing transaction's id, and an event is shown only once every
-- transaction older than the oldest one still running has ended (tx below the
-- snapshot's xmin), so a reader never passes an event that commits later with an
-- earlier position. seq orders the events of one transaction.
ALTER TABLE events
    ADD COLUMN tx  xid8 NOT NULL DEFAULT pg_current_xact_id(),
    ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX events_feed_idx ON events (api_client_id, tx, seq);

-- +goose Down
DROP INDEX events_feed_idx;
ALTER TABLE events DROP COLUMN seq, DROP COLUMN tx;
DROP TABLE idempotency_keys;
