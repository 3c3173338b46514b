-- name: KeyInsert :one
INSERT INTO api_keys (id, api_client_id, key_hash, key_prefix, created_at)
VALUES (@id, @api_client_id, @key_hash, @key_prefix, @now)
RETURNING *;

-- name: KeyAuthenticate :one
-- Resolves a key and, in the same round trip, records its use: only when the last
-- record is older than @stale_before, so a busy key does not write on every request.
-- last_used_at is the record after this use (a concurrent request's, or now, when
-- another request recorded its use between this one's read and its write).
WITH found AS (
    SELECT k.id AS key_id, c.id AS api_client_id, c.permissions, c.disabled_at, k.last_used_at
    FROM api_keys k
    JOIN api_clients c ON c.id = k.api_client_id
    WHERE k.key_hash = @key_hash AND k.revoked_at IS NULL
), touched AS (
    UPDATE api_keys u SET last_used_at = @now
    FROM found f
    WHERE u.id = f.key_id AND (u.last_used_at IS NULL OR u.last_used_at < @stale_before)
    RETURNING u.last_used_at
)
SELECT key_id, api_client_id, permissions, disabled_at,
       coalesce((SELECT last_used_at FROM touched), found.last_used_at, now())::timestamptz AS last_used_at
FROM found;

-- name: KeysOfClient :many
SELECT * FROM api_keys WHERE api_client_id = @api_client_id ORDER BY created_at, id;

-- name: KeyRevoke :one
UPDATE api_keys
SET revoked_at = coalesce(revoked_at, @now::timestamptz)
WHERE id = @id
RETURNING *;
