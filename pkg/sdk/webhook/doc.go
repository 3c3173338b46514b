// Package webhook receives doceval webhook deliveries: it verifies the
// X-Service-Signature header over the raw body (section 6.3 of the interface), decodes
// the event envelope while keeping data as raw JSON so that event types this version
// does not know pass through, and deduplicates on the event id, which is stable across
// retries and redeliveries.
package webhook
