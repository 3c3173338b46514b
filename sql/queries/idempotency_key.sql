-- name: IdempotencyClaim :one
-- Claims a key for a first request: a new key, an expired one, or one whose first
-- request was abandoned (running since before @stale_before: its process died). No row:
-- the key is taken (read it with IdempotencyGet). @owner names the claiming request.
INSERT INTO idempotency_keys (api_client_id, key, state, created_at, expires_at, owner)
VALUES (@api_client_id, @key, 'running', @now, @expires_at, @owner)
ON CONFLICT (api_client_id, key) DO UPDATE
SET state = 'running', request_hash = NULL, response_status = NULL, response_content_type = NULL,
    response_body = NULL, response_sealed = NULL, created_at = @now, expires_at = @expires_at, owner = @owner
WHERE idempotency_keys.expires_at <= @now
   OR (idempotency_keys.state = 'running' AND idempotency_keys.created_at < @stale_before::timestamptz)
RETURNING key;

-- name: IdempotencyGet :one
SELECT * FROM idempotency_keys WHERE api_client_id = @api_client_id AND key = @key;

-- name: IdempotencyFinish :exec
-- The body is kept sealed (response_sealed); response_body is only read, on rows kept
-- before responses were sealed.
UPDATE idempotency_keys
SET state = 'done', request_hash = @request_hash, response_status = @response_status,
    response_content_type = @response_content_type, response_sealed = @response_sealed, response_body = NULL
WHERE api_client_id = @api_client_id AND key = @key AND state = 'running' AND owner = @owner;

-- name: IdempotencyRelease :exec
DELETE FROM idempotency_keys
WHERE api_client_id = @api_client_id AND key = @key AND state = 'running' AND owner = @owner;

-- name: IdempotencyDeleteExpired :execrows
DELETE FROM idempotency_keys WHERE expires_at <= @now;

-- name: IdempotencyResponsesPage :many
-- The kept responses after (@after_client, @after_key), locked until the transaction
-- ends so a key claimed again meanwhile is not overwritten with its old response.
SELECT api_client_id, key, response_body, response_sealed FROM idempotency_keys
WHERE (api_client_id, key) > (@after_client::uuid, @after_key::text) AND state = 'done'
ORDER BY api_client_id, key
LIMIT @page_size
FOR UPDATE;

-- name: IdempotencyResponseSeal :exec
UPDATE idempotency_keys SET response_sealed = @response_sealed, response_body = NULL
WHERE api_client_id = @api_client_id AND key = @key AND state = 'done';

-- name: IdempotencyCheckInTx :one
-- The first step of a key whose claim commits in one transaction with the request's
-- work and its kept answer (IdempotencyKeepInTx). The key is locked for the
-- transaction (an advisory lock on the hash of @lock_name): free is false while another
-- request holds it and still runs. taken: the key holds a request that has neither
-- expired nor been abandoned (read it with IdempotencyGet); otherwise it is claimed by
-- the lock, and written only with its answer.
WITH lock AS (
    SELECT pg_try_advisory_xact_lock(hashtextextended(@lock_name::text, 0)) AS free
)
SELECT lock.free, EXISTS (
    SELECT 1 FROM idempotency_keys k
    WHERE k.api_client_id = @api_client_id AND k.key = @key AND k.expires_at > @now
      AND NOT (k.state = 'running' AND k.created_at < @stale_before::timestamptz)
) AS taken
FROM lock;

-- name: IdempotencyKeepInTx :exec
-- The answer to a key IdempotencyCheckInTx found free, kept in the same transaction as
-- the work. A key taken meanwhile by a request outside such a transaction (an upload,
-- which claims without the lock) is not overwritten: the statement then fails (division
-- by zero), so the transaction, sent with it in one pipeline, rolls back whole.
WITH kept AS (
    INSERT INTO idempotency_keys (api_client_id, key, state, created_at, expires_at, owner,
                                  request_hash, response_status, response_content_type, response_sealed)
    VALUES (@api_client_id, @key, 'done', @now, @expires_at, @owner,
            @request_hash, @response_status, @response_content_type, @response_sealed)
    ON CONFLICT (api_client_id, key) DO UPDATE
    SET state = 'done', request_hash = EXCLUDED.request_hash, response_status = EXCLUDED.response_status,
        response_content_type = EXCLUDED.response_content_type, response_body = NULL,
        response_sealed = EXCLUDED.response_sealed, created_at = EXCLUDED.created_at,
        expires_at = EXCLUDED.expires_at, owner = EXCLUDED.owner
    WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
       OR (idempotency_keys.state = 'running' AND idempotency_keys.created_at < @stale_before::timestamptz)
    RETURNING 1
)
SELECT 1 / count(*) FROM kept;
