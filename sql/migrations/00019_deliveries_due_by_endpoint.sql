-- Due deliveries are found per endpoint only (deliveries_endpoint_due_idx). The index of
-- all due deliveries by time let the claim's planner walk every due row for each endpoint
-- when a few endpoints held most of them (a claim took 350 ms with 2,000 endpoints and
-- 2,000 due deliveries), and every delivery write paid for it. No query needs it.

-- +goose Up
DROP INDEX deliveries_due_idx;

-- +goose Down
CREATE INDEX deliveries_due_idx ON deliveries (next_retry_at) WHERE status IN ('pending', 'failed_retryable');
