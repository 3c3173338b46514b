-- Responses kept for Idempotency-Key replay are sealed with the key ring
-- (DOCEVAL_SECRET_KEY, like webhook signing secrets): a createWebhookEndpoint or
-- rotateWebhookSecret answer carries signing_secret, which must not rest in clear.
-- response_sealed holds the body sealed, bound to the row's client and key;
-- response_body is left only on rows kept before this migration, until they expire or
-- `doceval-admin secrets reencrypt` seals them.
--
-- The jobs of a disabled API client are held, not run: held_at is when a worker set an
-- evaluation's or upload's job aside for that reason (its message acknowledged, so no
-- job of it is in flight). Enabling the client enqueues the held jobs again and clears
-- held_at; the reconcilers and the stale-evaluation sweeper leave held rows alone.

-- +goose Up
ALTER TABLE idempotency_keys ADD COLUMN response_sealed bytea;
ALTER TABLE evaluations ADD COLUMN held_at timestamptz;
ALTER TABLE uploads ADD COLUMN held_at timestamptz;
CREATE INDEX evaluations_held_idx ON evaluations (api_client_id) WHERE held_at IS NOT NULL;
CREATE INDEX uploads_held_idx ON uploads (api_client_id) WHERE held_at IS NOT NULL;

-- +goose Down
DROP INDEX uploads_held_idx;
DROP INDEX evaluations_held_idx;
ALTER TABLE uploads DROP COLUMN held_at;
ALTER TABLE evaluations DROP COLUMN held_at;
ALTER TABLE idempotency_keys DROP COLUMN response_sealed;
