-- When each API key was last used, for operators deciding which keys to revoke. Written
-- by authentication at most once a minute per key.

-- +goose Up
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

-- +goose Down
ALTER TABLE api_keys DROP COLUMN last_used_at;
