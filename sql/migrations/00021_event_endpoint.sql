-- An event emitted for one webhook endpoint only (triggerEvent with endpoint_id) names
-- it: its delivery is made with it, and the fan-out (DeliveryFanOut) leaves it alone.
-- Null for every other event.

-- +goose Up
ALTER TABLE events ADD COLUMN endpoint_id uuid;

-- +goose Down
ALTER TABLE events DROP COLUMN endpoint_id;
