-- name: DeliveryFanOut :execrows
-- One delivery per endpoint of the event's client that subscribed to its type and was
-- active when the event happened: created before it, and active then (active now and
-- unchanged since, or disabled only after it; a disabled one's deliveries wait).
INSERT INTO deliveries (id, event_id, endpoint_id, api_client_id, status, next_retry_at, trace_context, created_at)
SELECT gen_random_uuid(), e.id, w.id, e.api_client_id, 'pending', @now::timestamptz, sqlc.narg(trace_context)::jsonb, @now::timestamptz
FROM events e
JOIN webhook_endpoints w ON w.api_client_id = e.api_client_id
WHERE e.id = @event_id AND w.deleted_at IS NULL AND w.created_at <= e.created_at
  AND ((w.status = 'active' AND w.status_changed_at <= e.created_at)
       OR (w.status = 'disabled' AND w.status_changed_at > e.created_at))
  AND (w.events IS NULL OR e.type = ANY (w.events))
  -- A test event, and an event triggered for one endpoint, go to the one endpoint they
  -- were sent to (DeliveryInsertOne).
  AND e.type <> 'webhook_endpoint.test' AND e.endpoint_id IS NULL
ON CONFLICT (event_id, endpoint_id) DO NOTHING;

-- name: DeliveryInsertOne :one
-- The delivery of an event to one endpoint, due now (a webhook_endpoint.test event).
INSERT INTO deliveries (id, event_id, endpoint_id, api_client_id, status, next_retry_at, created_at)
VALUES (@id, @event_id, @endpoint_id, @api_client_id, 'pending', @now, @now)
RETURNING id;

-- name: DeliveryClaim :many
-- Due deliveries of active (or deleted) endpoints, leased to this dispatcher with a
-- fresh token: per endpoint only the oldest, and no more than per_endpoint leased at
-- once across all dispatchers, so a slow endpoint cannot crowd out the others; per API
-- client no more than per_client in this dispatcher, counting its sends in flight
-- (in_flight_*), so one client's many slow endpoints cannot crowd out the other
-- clients. The deliveries of a disabled API client are held (neither sent nor
-- failed) until it is enabled again. Each comes with what sending it needs (the
-- envelope, the endpoint's URL and sealed secrets): no lookup per delivery.
WITH in_flight AS ( -- this dispatcher's sends in flight, by client
    SELECT unnest(@in_flight_clients::uuid[]) AS api_client_id, unnest(@in_flight_counts::bigint[]) AS n
)
UPDATE deliveries d SET lease_until = @lease_until::timestamptz, lease_token = gen_random_uuid()
FROM webhook_endpoints w
-- The chosen ids are arrays (= ANY (ARRAY(…))), and each envelope is a subquery, so
-- every step finds its rows by primary key whatever the planner thinks of a table's
-- size (an IN joined all due rows, a join read all events).
WHERE w.id = d.endpoint_id AND d.id = ANY (ARRAY(
    SELECT c.id FROM deliveries c
    WHERE c.id = ANY (ARRAY(
        SELECT ranked.id FROM (
            SELECT due.id, due.next_retry_at, w.api_client_id,
                   row_number() OVER (PARTITION BY w.api_client_id ORDER BY due.next_retry_at) AS client_rank
            FROM webhook_endpoints w
            CROSS JOIN LATERAL (
                SELECT d2.id, d2.next_retry_at FROM deliveries d2
                WHERE d2.endpoint_id = w.id AND d2.status IN ('pending', 'failed_retryable')
                  AND d2.next_retry_at <= @now::timestamptz
                  AND (d2.lease_until IS NULL OR d2.lease_until < @now::timestamptz)
                ORDER BY d2.next_retry_at
                -- Counted up to the bound only (LIMIT), which also keeps the count on
                -- the index, marking the entries of settled leases dead as it passes.
                LIMIT greatest(0, sqlc.arg(per_endpoint)::bigint - (
                    SELECT count(*) FROM (SELECT FROM deliveries l WHERE l.endpoint_id = w.id AND l.lease_until >= @now::timestamptz
                                          LIMIT sqlc.arg(per_endpoint)::bigint) leased))
            ) due
            WHERE (w.status = 'active' OR w.deleted_at IS NOT NULL)
              AND NOT EXISTS (SELECT 1 FROM api_clients ac WHERE ac.id = w.api_client_id AND ac.disabled_at IS NOT NULL)
        ) ranked
        LEFT JOIN in_flight ON in_flight.api_client_id = ranked.api_client_id
        WHERE ranked.client_rank <= sqlc.arg(per_client)::bigint - coalesce(in_flight.n, 0)
        ORDER BY ranked.next_retry_at
        LIMIT @max_rows))
    -- Checked again on the row as it is once locked: a delivery another dispatcher
    -- leased (or settled) since this statement's snapshot is not leased twice.
    AND c.status IN ('pending', 'failed_retryable') AND (c.lease_until IS NULL OR c.lease_until < @now::timestamptz)
    FOR UPDATE OF c SKIP LOCKED))
RETURNING d.id, d.event_id, d.endpoint_id, d.api_client_id, d.status, d.attempt_count, d.next_retry_at,
          d.last_attempted_at, d.lease_token, d.trace_context,
          (SELECT e.envelope FROM events e WHERE e.id = d.event_id)::json AS envelope, w.url, w.secret, w.previous_secret,
          w.previous_secret_expires_at, (w.deleted_at IS NOT NULL)::boolean AS endpoint_deleted;

-- name: DeliveryTarget :one
SELECT e.envelope, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at, (w.deleted_at IS NOT NULL)::boolean AS endpoint_deleted,
       (c.disabled_at IS NOT NULL)::boolean AS client_disabled
FROM deliveries d
JOIN events e ON e.id = d.event_id
JOIN webhook_endpoints w ON w.id = d.endpoint_id
JOIN api_clients c ON c.id = d.api_client_id
WHERE d.id = @id;

-- name: DeliveryAttemptInsert :exec
INSERT INTO delivery_attempts (delivery_id, attempt_number, attempted_at, outcome, response_status, transport_error, response_time_ms)
VALUES (@delivery_id, @attempt_number, @attempted_at, @outcome, sqlc.narg(response_status), sqlc.narg(transport_error), @response_time_ms);

-- name: DeliverySettle :one
-- Only the lease holder settles; a redelivery asked for meanwhile wins over the outcome.
UPDATE deliveries
SET status = CASE WHEN requeue_requested THEN 'pending' ELSE @status END,
    attempt_count = @attempt_count, last_attempted_at = sqlc.narg(last_attempted_at),
    next_retry_at = CASE WHEN requeue_requested THEN @now::timestamptz ELSE sqlc.narg(next_retry_at) END,
    requeue_requested = false, lease_until = NULL, lease_token = NULL
WHERE id = @id AND lease_token = @lease_token
RETURNING status;

-- name: DeliveryRelease :exec
-- Gives a leased delivery back untouched, due again at next_retry_at.
UPDATE deliveries SET lease_until = NULL, lease_token = NULL, next_retry_at = @next_retry_at::timestamptz
WHERE id = @id AND lease_token = @lease_token;

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
-- event; with one: that endpoint's delivery whatever its state. Attempts are kept. A
-- delivery being sent right now is requeued when that send settles.
UPDATE deliveries
SET status = CASE WHEN lease_until >= @now::timestamptz THEN status ELSE 'pending' END,
    next_retry_at = CASE WHEN lease_until >= @now::timestamptz THEN next_retry_at ELSE @now::timestamptz END,
    requeue_requested = coalesce(lease_until >= @now::timestamptz, false)
WHERE event_id = @event_id
  AND ((sqlc.narg(endpoint_id)::uuid IS NULL AND status IN ('failed_retryable', 'failed_permanent', 'abandoned'))
       OR endpoint_id = sqlc.narg(endpoint_id)::uuid);

-- name: DeliveriesOfEndpointFailPermanent :exec
-- A deleted endpoint's deliveries that were still to be tried (one in flight settles
-- by itself and is then found deleted).
UPDATE deliveries SET status = 'failed_permanent', next_retry_at = NULL
WHERE endpoint_id = @endpoint_id AND status IN ('pending', 'failed_retryable') AND (lease_until IS NULL OR lease_until < @now::timestamptz);

-- name: DeliverySettleAttempts :execrows
-- DeliverySettle and the attempt's record for many sends in one statement (one round
-- trip per batch of sends): only each lease's holder settles, a redelivery asked for
-- meanwhile wins over the outcome. next_retry_at is kept only for a retry.
WITH outcome AS (
    SELECT unnest(@ids::uuid[]) AS id, unnest(@lease_tokens::uuid[]) AS lease_token, unnest(@statuses::text[]) AS status,
           unnest(@attempt_numbers::int[]) AS attempt_number, unnest(@attempted_ats::timestamptz[]) AS attempted_at,
           unnest(@next_retry_ats::timestamptz[]) AS next_retry_at, unnest(@outcomes::text[]) AS outcome,
           unnest(@response_statuses::int[]) AS response_status, unnest(@transport_errors::text[]) AS transport_error,
           unnest(@response_times_ms::int[]) AS response_time_ms
), settled AS (
    UPDATE deliveries d
    SET status = CASE WHEN d.requeue_requested THEN 'pending' ELSE o.status END,
        attempt_count = o.attempt_number, last_attempted_at = o.attempted_at,
        next_retry_at = CASE WHEN d.requeue_requested THEN @now::timestamptz
                             WHEN o.status = 'failed_retryable' THEN o.next_retry_at END,
        requeue_requested = false, lease_until = NULL, lease_token = NULL
    FROM outcome o
    WHERE d.id = o.id AND d.lease_token = o.lease_token
    RETURNING d.id)
INSERT INTO delivery_attempts (delivery_id, attempt_number, attempted_at, outcome, response_status, transport_error, response_time_ms)
-- 0 and '' stand for no status and no transport error (arrays of non-null values).
SELECT o.id, o.attempt_number, o.attempted_at, o.outcome, nullif(o.response_status, 0), nullif(o.transport_error, ''), o.response_time_ms
FROM outcome o JOIN settled USING (id);
