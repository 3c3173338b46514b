-- Delivery leases carry a token: only the dispatcher holding the lease settles the
-- delivery. A redelivery asked for while a send is in flight is remembered and applied
-- when that send settles. Endpoints remember when their status last changed, so
-- fan-out routes an event by the endpoint's state when the event happened.

-- +goose Up
ALTER TABLE deliveries ADD COLUMN lease_token uuid;
ALTER TABLE deliveries ADD COLUMN requeue_requested boolean NOT NULL DEFAULT false;
ALTER TABLE webhook_endpoints ADD COLUMN status_changed_at timestamptz;
UPDATE webhook_endpoints SET status_changed_at = created_at;
ALTER TABLE webhook_endpoints ALTER COLUMN status_changed_at SET NOT NULL;
CREATE INDEX deliveries_leased_idx ON deliveries (endpoint_id) WHERE lease_until IS NOT NULL;
CREATE INDEX deliveries_endpoint_due_idx ON deliveries (endpoint_id, next_retry_at) WHERE status IN ('pending', 'failed_retryable');

-- +goose Down
DROP INDEX deliveries_endpoint_due_idx;
DROP INDEX deliveries_leased_idx;
ALTER TABLE webhook_endpoints DROP COLUMN status_changed_at;
ALTER TABLE deliveries DROP COLUMN requeue_requested;
ALTER TABLE deliveries DROP COLUMN lease_token;
