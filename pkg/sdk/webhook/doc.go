// Package webhook receives doceval webhook deliveries. Every delivery is signed twice over
// the raw body with the endpoint's signing_secret (one signature per secret during a
// rotation), and either scheme verifies it (VerifyRequest):
//
//   - X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "{t}.{raw body}">, keyed
//     with the secret string as is (Verify);
//   - Standard Webhooks: webhook-id (the event id), webhook-timestamp (unix seconds) and
//     webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{raw body}">, keyed
//     with the secret's base64 after "whsec_", decoded (VerifyStandard, SigningKey), which
//     the Standard Webhooks libraries of other languages verify given the secret as is.
//
// It also decodes the event envelope while keeping data as raw JSON, so that event types
// this version does not know pass through; and deduplicates on the event id, which is
// stable across retries and redeliveries.
package webhook
