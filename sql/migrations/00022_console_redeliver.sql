-- The console's Redeliver button requeues an event's deliveries as the API's
-- redeliverEvent does (store.Redeliver, DeliveryRequeue): the console may set the
-- columns a requeue sets, and no others (the dispatcher's lease stays its own).

-- +goose Up
GRANT UPDATE (status, next_retry_at, requeue_requested) ON deliveries TO doceval_console;

-- +goose Down
REVOKE UPDATE (status, next_retry_at, requeue_requested) ON deliveries FROM doceval_console;
