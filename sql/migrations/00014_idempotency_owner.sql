-- Each claim of an Idempotency-Key names its request (owner): a request whose claim
-- may or may not have been written (the connection broke before the answer) releases
-- the key later by that name, without touching a retry's claim that took its place.

-- +goose Up
ALTER TABLE idempotency_keys ADD COLUMN owner uuid;

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN owner;
