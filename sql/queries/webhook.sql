-- name: WebhookEndpointInsert :one
INSERT INTO webhook_endpoints (id, api_client_id, url, description, events, status, secret, status_changed_at, created_at, updated_at)
VALUES (@id, @api_client_id, @url, @description, sqlc.narg(events)::text[], 'active', @secret, @now, @now, @now)
RETURNING *;

-- name: WebhookEndpointGet :one
SELECT * FROM webhook_endpoints WHERE api_client_id = @api_client_id AND id = @id AND deleted_at IS NULL;

-- name: WebhookEndpointList :many
SELECT * FROM webhook_endpoints
WHERE api_client_id = @api_client_id AND deleted_at IS NULL
  AND (sqlc.narg(cursor_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: WebhookEndpointCountActive :one
SELECT count(*) FROM webhook_endpoints WHERE api_client_id = @api_client_id AND deleted_at IS NULL AND status = 'active';

-- name: WebhookEndpointLockClient :exec
-- Serializes the client's changes that count active endpoints.
SELECT pg_advisory_xact_lock(hashtextextended('doceval_webhook_endpoints:' || @id::text, 0));

-- name: WebhookEndpointUpdate :one
UPDATE webhook_endpoints
SET url = coalesce(sqlc.narg(url), url),
    description = coalesce(sqlc.narg(description), description),
    events = CASE WHEN @set_events::boolean THEN sqlc.narg(events)::text[] ELSE events END,
    status_changed_at = CASE WHEN coalesce(sqlc.narg(status), status) <> status THEN @now ELSE status_changed_at END,
    status = coalesce(sqlc.narg(status), status),
    updated_at = @now
WHERE api_client_id = @api_client_id AND id = @id AND deleted_at IS NULL
RETURNING *;

-- name: WebhookEndpointDelete :execrows
UPDATE webhook_endpoints SET deleted_at = @now::timestamptz, updated_at = @now::timestamptz
WHERE api_client_id = @api_client_id AND id = @id AND deleted_at IS NULL;

-- name: WebhookEndpointRotate :one
-- The current secret becomes the previous one until expires_at; a previous secret still
-- in its window is dropped at once (rotating twice keeps only the two newest).
UPDATE webhook_endpoints
SET previous_secret = secret, previous_secret_expires_at = @expires_at::timestamptz,
    secret = @secret, updated_at = @now
WHERE api_client_id = @api_client_id AND id = @id AND deleted_at IS NULL
RETURNING *;

-- name: WebhookSecretsPage :many
-- Every endpoint's sealed secrets (deleted endpoints too), in id order, for re-sealing
-- under a new key.
SELECT id, secret, previous_secret FROM webhook_endpoints
WHERE id > @after ORDER BY id LIMIT @page_size FOR UPDATE;

-- name: WebhookSecretsSet :exec
UPDATE webhook_endpoints SET secret = @secret, previous_secret = @previous_secret WHERE id = @id;
