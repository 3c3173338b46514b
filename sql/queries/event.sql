-- name: EventInsert :exec
INSERT INTO events (id, api_client_id, type, submission_id, envelope, created_at)
VALUES (@id, @api_client_id, @type, sqlc.narg(submission_id), @envelope, @created_at);

-- name: EventGetByID :one
SELECT * FROM events WHERE api_client_id = @api_client_id AND id = @id;

-- name: EventList :many
-- Newest first, keyset-paginated on (created_at, id).
SELECT * FROM events
WHERE api_client_id = @api_client_id
  AND (sqlc.narg(type)::text IS NULL OR type = sqlc.narg(type)::text)
  AND (sqlc.narg(submission_id)::uuid IS NULL OR submission_id = sqlc.narg(submission_id)::uuid)
  AND (sqlc.narg(cursor_created_at)::timestamptz IS NULL
       OR (created_at, id) < (sqlc.narg(cursor_created_at)::timestamptz, sqlc.narg(cursor_id)::uuid))
ORDER BY created_at DESC, id DESC
LIMIT @max_rows;

-- name: EventDeleteOlderThan :execrows
DELETE FROM events WHERE created_at < @before;
