-- name: OperatorInsert :one
INSERT INTO operators (id, email, role, password_hash, all_clients, created_at, updated_at)
VALUES (@id, @email, @role, sqlc.narg(password_hash), @all_clients, @now, @now)
RETURNING *;

-- name: OperatorGetByID :one
SELECT * FROM operators WHERE id = @id;

-- name: OperatorGetByEmail :one
SELECT * FROM operators WHERE lower(email) = lower(@email::text);

-- name: OperatorGetByOIDCSubject :one
SELECT * FROM operators WHERE oidc_subject = @oidc_subject;

-- name: OperatorList :many
SELECT * FROM operators ORDER BY lower(email), id;

-- name: OperatorSetOIDCSubject :execrows
-- Binds an identity to an account that has none (or already this one): 0 rows when
-- another identity got there first.
UPDATE operators SET oidc_subject = @oidc_subject, updated_at = @now
WHERE id = @id AND (oidc_subject IS NULL OR oidc_subject = @oidc_subject);

-- name: OperatorSetPassword :exec
UPDATE operators SET password_hash = sqlc.narg(password_hash), updated_at = @now WHERE id = @id;

-- name: OperatorSetRole :exec
UPDATE operators SET role = @role, all_clients = @all_clients, updated_at = @now WHERE id = @id;

-- name: OperatorSetDisabled :execrows
UPDATE operators SET disabled_at = sqlc.narg(disabled_at), updated_at = @now WHERE id = @id;

-- name: OperatorClientsOf :many
SELECT api_client_id FROM operator_clients WHERE operator_id = @operator_id ORDER BY api_client_id;

-- name: OperatorClientsClear :exec
DELETE FROM operator_clients WHERE operator_id = @operator_id;

-- name: OperatorClientAdd :exec
INSERT INTO operator_clients (operator_id, api_client_id) VALUES (@operator_id, @api_client_id)
ON CONFLICT DO NOTHING;
