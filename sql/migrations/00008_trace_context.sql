-- Trace context: the W3C traceparent, tracestate and baggage of the transaction that
-- wrote a row, so one trace follows a request through the outbox and JetStream into the
-- workers (the relay publishes it as NATS headers), and from an event's fan-out into its
-- webhook attempts. NULL when tracing is off.

-- +goose Up
ALTER TABLE outbox ADD COLUMN trace_context jsonb;
ALTER TABLE deliveries ADD COLUMN trace_context jsonb;

-- +goose Down
ALTER TABLE deliveries DROP COLUMN trace_context;
ALTER TABLE outbox DROP COLUMN trace_context;
