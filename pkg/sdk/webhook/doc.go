// Package webhook receives doceval webhook deliveries. It verifies the
// X-Service-Signature header, t=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{raw body}">
// keyed with the endpoint's signing_secret (one v1 per secret during a rotation), over
// the raw body; decodes the event envelope while keeping data as raw JSON, so that
// event types this version does not know pass through; and deduplicates on the event
// id, which is stable across retries and redeliveries.
package webhook
