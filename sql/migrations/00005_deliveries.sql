-- Webhook deliveries: one per event and endpoint, with every attempt. The retry
-- schedule lives here (next_retry_at), not in JetStream, so 24-hour delays do not
-- depend on message age limits; lease_until keeps two dispatchers off one attempt.

-- +goose Up
CREATE TABLE deliveries (
    id                uuid PRIMARY KEY,
    event_id          uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    endpoint_id       uuid NOT NULL REFERENCES webhook_endpoints (id),
    api_client_id     uuid NOT NULL REFERENCES api_clients (id),
    status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed_retryable', 'failed_permanent', 'abandoned')),
    attempt_count     integer NOT NULL DEFAULT 0,
    next_retry_at     timestamptz,
    lease_until       timestamptz,
    last_attempted_at timestamptz,
    created_at        timestamptz NOT NULL,
    UNIQUE (event_id, endpoint_id)
);
CREATE INDEX deliveries_due_idx ON deliveries (next_retry_at) WHERE status IN ('pending', 'failed_retryable');

CREATE TABLE delivery_attempts (
    delivery_id      uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    attempt_number   integer NOT NULL,
    attempted_at     timestamptz NOT NULL,
    outcome          text NOT NULL,
    response_status  integer,
    transport_error  text,
    response_time_ms integer NOT NULL,
    PRIMARY KEY (delivery_id, attempt_number)
);

-- +goose Down
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
