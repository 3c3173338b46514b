-- name: OutboxInsert :exec
INSERT INTO outbox (id, subject, payload, trace_context, created_at)
VALUES (@id, @subject, @payload, sqlc.narg(trace_context), @created_at);

-- name: OutboxClaim :many
-- Rows locked here stay invisible to other relays until this transaction ends, so
-- several replicas drain the outbox without publishing the same row concurrently.
SELECT * FROM outbox
ORDER BY seq
LIMIT @max_rows
FOR UPDATE SKIP LOCKED;

-- name: OutboxDelete :exec
DELETE FROM outbox WHERE seq = ANY(@seqs::bigint[]);

-- name: OutboxOldest :one
-- For the outbox lag metric: the age of the oldest unpublished row.
SELECT coalesce(min(created_at), @now::timestamptz)::timestamptz AS oldest, count(*) AS pending FROM outbox;

-- name: OutboxWaiting :one
-- Whether a job waits on subject, or on a subject starting with prefix (a per-client queue).
SELECT EXISTS (SELECT 1 FROM outbox WHERE subject = @subject OR starts_with(subject, @prefix::text))::boolean;
