-- Webhook endpoints. Signing secrets are stored sealed (AES-256-GCM, pkg/secretbox);
-- during a rotation the previous secret stays valid until previous_secret_expires_at.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id                         uuid PRIMARY KEY,
    api_client_id              uuid NOT NULL REFERENCES api_clients (id),
    url                        text NOT NULL,
    description                text NOT NULL,
    events                     text[],
    status                     text NOT NULL CHECK (status IN ('active', 'disabled')),
    secret                     bytea NOT NULL,
    previous_secret            bytea,
    previous_secret_expires_at timestamptz,
    deleted_at                 timestamptz,
    created_at                 timestamptz NOT NULL,
    updated_at                 timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_list_idx ON webhook_endpoints (api_client_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE webhook_endpoints;
