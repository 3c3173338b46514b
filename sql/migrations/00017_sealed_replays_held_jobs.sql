-- Responses kept for Idempotency-Key replay are sealed with the key ring
-- (DOCEVAL_SECRET_KEY, like webhook signing secrets): a createWebhookEndpoint or
-- rotateWebhookSecret answer carries signing_secret, which must not rest in clear.
-- response_sealed holds the body sealed, bound to the row's client and key;
-- response_body is left only on rows kept before this migration, until they expire or
-- `doceval-admin secrets reencrypt` seals them.

-- +goose Up
ALTER TABLE idempotency_keys ADD COLUMN response_sealed bytea;

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN response_sealed;
