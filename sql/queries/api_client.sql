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
