-- name: DeliveryFanOut :execrows
-- One delivery per active endpoint of the event's client that subscribes to its type.
INSERT INTO deliveries (id, event_id, endpoint_id, api_client_id, status, next_retry_at, created_at)
SELECT gen_random_uuid(), e.id, w.id, e.api_client_id, 'pending', @now::timestamptz, @now::timestamptz
FROM events e
JOIN webhook_endpoints w ON w.api_client_id = e.api_client_id
WHERE e.id = @event_id AND w.deleted_at IS NULL AND w.status = 'active'
  AND (w.events IS NULL OR e.type = ANY (w.events))
ON CONFLICT (event_id, endpoint_id) DO NOTHING;

-- name: DeliveryClaim :many
-- Due deliveries of active (or deleted) endpoints, leased to this dispatcher; disabled
-- endpoints' deliveries wait.
UPDATE deliveries d SET lease_until = @lease_until::timestamptz
WHERE d.id IN (
    SELECT d2.id FROM deliveries d2
    JOIN webhook_endpoints w ON w.id = d2.endpoint_id
    WHERE d2.status IN ('pending', 'failed_retryable') AND d2.next_retry_at <= @now::timestamptz
      AND (d2.lease_until IS NULL OR d2.lease_until < @now::timestamptz)
      AND (w.status = 'active' OR w.deleted_at IS NOT NULL)
    ORDER BY d2.next_retry_at
    LIMIT @max_rows
    FOR UPDATE OF d2 SKIP LOCKED)
RETURNING d.*;

-- name: DeliveryTarget :one
SELECT e.envelope, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at, (w.deleted_at IS NOT NULL)::boolean AS endpoint_deleted
FROM deliveries d
JOIN events e ON e.id = d.event_id
JOIN webhook_endpoints w ON w.id = d.endpoint_id
WHERE d.id = @id;

-- name: DeliveryAttemptInsert :exec
INSERT INTO delivery_attempts (delivery_id, attempt_number, attempted_at, outcome, response_status, transport_error, response_time_ms)
VALUES (@delivery_id, @attempt_number, @attempted_at, @outcome, sqlc.narg(response_status), sqlc.narg(transport_error), @response_time_ms);

-- name: DeliverySettle :exec
UPDATE deliveries
SET status = @status, attempt_count = @attempt_count, last_attempted_at = sqlc.narg(last_attempted_at),
    next_retry_at = sqlc.narg(next_retry_at), lease_until = NULL
WHERE id = @id;

-- name: DeliveriesOfEvent :many
SELECT d.*, w.url AS endpoint_url FROM deliveries d
JOIN webhook_endpoints w ON w.id = d.endpoint_id
WHERE d.event_id = @event_id
ORDER BY d.created_at, d.id;

-- name: AttemptsOfEvent :many
SELECT a.* FROM delivery_attempts a
JOIN deliveries d ON d.id = a.delivery_id
WHERE d.event_id = @event_id
ORDER BY a.delivery_id, a.attempt_number;

-- name: DeliveryRequeue :execrows
-- Without an endpoint: every failed, permanently failed or abandoned delivery of the
-- event; with one: that endpoint's delivery whatever its state. Attempts are kept.
UPDATE deliveries SET status = 'pending', next_retry_at = @now::timestamptz, lease_until = NULL
WHERE event_id = @event_id
  AND ((sqlc.narg(endpoint_id)::uuid IS NULL AND status IN ('failed_retryable', 'failed_permanent', 'abandoned'))
       OR endpoint_id = sqlc.narg(endpoint_id)::uuid);

-- name: DeliveriesOfEndpointFailPermanent :exec
-- A deleted endpoint's deliveries that were still to be tried.
UPDATE deliveries SET status = 'failed_permanent', next_retry_at = NULL, lease_until = NULL
WHERE endpoint_id = @endpoint_id AND status IN ('pending', 'failed_retryable');
