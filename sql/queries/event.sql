-- name: EventInsert :exec
-- endpoint_id is set only on an event for that one endpoint (triggerEvent).
INSERT INTO events (id, api_client_id, type, submission_id, endpoint_id, envelope, created_at)
VALUES (@id, @api_client_id, @type, sqlc.narg(submission_id), sqlc.narg(endpoint_id), @envelope, @created_at);

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
-- Up to @batch of the oldest events before @before, in their own short transaction (with
-- their deliveries, by cascade): retention deletes a backlog batch by batch, so no lock
-- is held long. (No FOR UPDATE SKIP LOCKED: a row lock needs UPDATE on events, which the
-- dispatcher's role does not have; a replica deleting the same batch meanwhile leaves
-- this one fewer rows, and the loop ends.)
DELETE FROM events
WHERE id IN (SELECT e.id FROM events e WHERE e.created_at < @before ORDER BY e.created_at LIMIT @batch);

-- name: EventFeed :many
-- The client's events after (after_tx, after_seq), oldest first, of transactions below
-- @horizon (read with EventFeedHorizon before: all of them had ended then).
SELECT id, created_at, envelope, tx::text AS tx, seq
FROM events
WHERE api_client_id = @api_client_id
  AND (tx, seq) > (CAST(sqlc.arg(after_tx)::text AS xid8), sqlc.arg(after_seq)::bigint)
  AND tx < CAST(sqlc.arg(horizon)::text AS xid8)
  AND (cardinality(@types::text[]) = 0 OR type = ANY (@types::text[]))
-- The table's columns, not the text output column tx (text order would put 1000 before 949).
ORDER BY events.tx, events.seq
LIMIT @max_rows;

-- name: EventFeedHorizon :one
-- The feed's current end: the oldest transaction still running (every transaction
-- below it has ended, so its events are readable and no later one can come before them).
SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon;

-- name: EventFeedLast :one
-- The position of the client's newest event visible now (no row when it has none): the
-- last entry of events_feed_idx for the client, however long its history.
SELECT events.tx::text AS tx, events.seq FROM events WHERE events.api_client_id = @api_client_id
ORDER BY events.tx DESC, events.seq DESC -- the columns, not the text the query answers
LIMIT 1;
