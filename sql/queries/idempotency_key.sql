-- name: IdempotencyClaim :one
-- Claims a key for a first request: a new key, an expired one, or one whose first
-- request was abandoned (running since before @stale_before: its process died). No row:
-- the key is taken (read it with IdempotencyGet). @owner names the claiming request.
INSERT INTO idempotency_keys (api_client_id, key, state, created_at, expires_at, owner)
VALUES (@api_client_id, @key, 'running', @now, @expires_at, @owner)
ON CONFLICT (api_client_id, key) DO UPDATE
SET state = 'running', request_hash = NULL, response_status = NULL, response_content_type = NULL,
    response_body = NULL, created_at = @now, expires_at = @expires_at, owner = @owner
WHERE idempotency_keys.expires_at <= @now
   OR (idempotency_keys.state = 'running' AND idempotency_keys.created_at < @stale_before::timestamptz)
RETURNING key;

-- name: IdempotencyGet :one
SELECT * FROM idempotency_keys WHERE api_client_id = @api_client_id AND key = @key;

-- name: IdempotencyFinish :exec
UPDATE idempotency_keys
SET state = 'done', request_hash = @request_hash, response_status = @response_status,
    response_content_type = @response_content_type, response_body = @response_body
WHERE api_client_id = @api_client_id AND key = @key AND state = 'running' AND owner = @owner;

-- name: IdempotencyRelease :exec
DELETE FROM idempotency_keys
WHERE api_client_id = @api_client_id AND key = @key AND state = 'running' AND owner = @owner;

-- name: IdempotencyDeleteExpired :execrows
DELETE FROM idempotency_keys WHERE expires_at <= @now;
