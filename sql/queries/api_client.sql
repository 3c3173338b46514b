-- name: ClientInsert :one
INSERT INTO api_clients (id, name, permissions, created_at, updated_at)
VALUES (@id, @name, @permissions::text[], @now, @now)
RETURNING *;

-- name: ClientGetByID :one
SELECT * FROM api_clients WHERE id = @id;

-- name: ClientList :many
SELECT * FROM api_clients ORDER BY created_at, id;

-- name: ClientSetDisabled :one
UPDATE api_clients
SET disabled_at = sqlc.narg(disabled_at), updated_at = @now
WHERE id = @id
RETURNING *;

-- name: ClientSetPermissions :one
UPDATE api_clients
SET permissions = @permissions::text[], updated_at = @now
WHERE id = @id
RETURNING *;

-- name: ClientHoldLockShared :exec
-- Taken by a worker before it reads whether the client is disabled (in a statement of
-- its own, so the read sees what committed before the lock was granted) and sets a job
-- aside; ClientHoldLock, taken by disabling and enabling, waits for it. An advisory
-- lock, so the workers' roles need no write right on api_clients.
SELECT pg_advisory_xact_lock_shared(hashtextextended('doceval.api_client_hold:' || (@id::uuid)::text, 0));

-- name: ClientHoldLock :exec
SELECT pg_advisory_xact_lock(hashtextextended('doceval.api_client_hold:' || (@id::uuid)::text, 0));

-- name: ClientDisabled :one
SELECT (disabled_at IS NOT NULL)::boolean AS disabled FROM api_clients WHERE id = @id;

-- name: APIClientsDisabled :many
-- Which of these API clients are disabled now (deliveries claimed before a disable are
-- given back, not sent).
SELECT id FROM api_clients WHERE id = ANY (@ids::uuid[]) AND disabled_at IS NOT NULL;
