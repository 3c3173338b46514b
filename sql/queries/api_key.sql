-- name: KeyInsert :one
INSERT INTO api_keys (id, api_client_id, key_hash, key_prefix, created_at)
VALUES (@id, @api_client_id, @key_hash, @key_prefix, @now)
RETURNING *;

-- name: KeyAuthenticate :one
SELECT k.id AS key_id, c.id AS api_client_id, c.permissions, c.disabled_at
FROM api_keys k
JOIN api_clients c ON c.id = k.api_client_id
WHERE k.key_hash = @key_hash AND k.revoked_at IS NULL;

-- name: KeyRevoke :one
UPDATE api_keys
SET revoked_at = coalesce(revoked_at, @now::timestamptz)
WHERE id = @id
RETURNING *;
