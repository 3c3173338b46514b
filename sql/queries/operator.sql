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

-- name: OperatorSetTOTPPending :execrows
-- Starts (or restarts) an enrolment of an account that has no second factor yet.
UPDATE operators SET totp_pending_secret = @secret, updated_at = @now
WHERE id = @id AND totp_secret IS NULL;

-- name: OperatorEnableTOTP :execrows
-- Makes the pending secret the account's second factor, if it is still the one the code
-- was checked against; @step (the code's) counts as used.
UPDATE operators
SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_enabled_at = @now::timestamptz,
    totp_last_step = @step::bigint, updated_at = @now::timestamptz
WHERE id = @id AND totp_secret IS NULL AND totp_pending_secret = @pending;

-- name: OperatorUseTOTPStep :execrows
-- Marks a code's time step used: 0 rows when a code of this step (or a later one)
-- was accepted already, so a code signs in once.
UPDATE operators SET totp_last_step = @step::bigint
WHERE id = @id AND totp_secret IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < @step::bigint);

-- name: OperatorResetTOTP :execrows
UPDATE operators
SET totp_secret = NULL, totp_pending_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = @now
WHERE id = @id;

-- name: OperatorTOTPSecretsPage :many
-- Accounts with a sealed TOTP secret (enabled or pending), by id after @after.
SELECT id, totp_secret, totp_pending_secret FROM operators
WHERE id > @after AND (totp_secret IS NOT NULL OR totp_pending_secret IS NOT NULL)
ORDER BY id
LIMIT @page_size;

-- name: OperatorTOTPSecretsSet :exec
UPDATE operators SET totp_secret = @secret, totp_pending_secret = @pending_secret WHERE id = @id;
