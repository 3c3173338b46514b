-- Foundation: API clients and their keys, the event log, and the transactional outbox.

-- +goose Up
CREATE TABLE api_clients (
    id          uuid PRIMARY KEY,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    permissions text[] NOT NULL,
    disabled_at timestamptz,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

-- Keys are stored only as a SHA-256 hash: they carry 256 bits of randomness, so a
-- fast hash cannot be brute-forced, and lookup by hash stays a single index probe.
CREATE TABLE api_keys (
    id            uuid PRIMARY KEY,
    api_client_id uuid NOT NULL REFERENCES api_clients (id),
    key_hash      bytea NOT NULL UNIQUE,
    key_prefix    text NOT NULL,
    created_at    timestamptz NOT NULL,
    revoked_at    timestamptz
);
CREATE INDEX api_keys_client_idx ON api_keys (api_client_id);

-- The event log. envelope is json (not jsonb) on purpose: it keeps the exact bytes that
-- are listed, read and signed for webhook deliveries.
CREATE TABLE events (
    id            uuid PRIMARY KEY,
    api_client_id uuid NOT NULL REFERENCES api_clients (id),
    type          text NOT NULL,
    submission_id uuid,
    envelope      json NOT NULL,
    created_at    timestamptz NOT NULL
);
CREATE INDEX events_client_created_idx ON events (api_client_id, created_at DESC, id DESC);
CREATE INDEX events_client_type_created_idx ON events (api_client_id, type, created_at DESC, id DESC);
CREATE INDEX events_client_submission_created_idx ON events (api_client_id, submission_id, created_at DESC, id DESC)
    WHERE submission_id IS NOT NULL;
CREATE INDEX events_created_idx ON events (created_at);

-- The outbox: written in the same transaction as the state change it announces, published
-- to JetStream by the relay with id as the message id, deleted once JetStream acknowledged.
CREATE TABLE outbox (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         uuid NOT NULL UNIQUE,
    subject    text NOT NULL,
    payload    bytea NOT NULL,
    created_at timestamptz NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('doceval_outbox', '');
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

-- One notification per statement wakes the relay; it then drains whatever is there.
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

-- +goose Down
DROP TRIGGER outbox_notify ON outbox;
DROP FUNCTION outbox_notify();
DROP TABLE outbox;
DROP TABLE events;
DROP TABLE api_keys;
DROP TABLE api_clients;
