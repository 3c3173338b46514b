// Package sdk is the Go client of the doceval API: typed calls for every operation of
// the API, safe automatic retries, typed errors, iterators over lists, streaming uploads
// and waiters. The generated client it builds on is
// github.com/doceval/doceval/gen/client, whose types the calls take and return; this
// package re-exports them under the same names ([Submission], [CreateSubmissionRequest],
// [EvaluationStatusCompleted], …), so a program needs no import of the client.
//
// # Install
//
//	go get github.com/doceval/doceval/pkg/sdk@latest
//
// # Authentication
//
// [New] takes the service's base URL and an API key, "dek_" followed by its secret, sent
// as "Authorization: Bearer <key>" on every request:
//
//	c, err := sdk.New("https://api.doceval.example", os.Getenv("DOCEVAL_API_KEY"))
//
// A missing or revoked key is 401 invalid_api_key, a disabled client 403
// api_client_disabled, a key without the operation's permission 403 permission_denied.
//
// # Calls
//
// Each operation of the API is a method named after its operation id: createSubmission
// is [Client.CreateSubmission], listEventFeed [Client.ListEventFeed], and so on; the two
// upload operations, createUpload and createSlotUpload, are [Client.UploadFile]. List
// operations return iterators that fetch the next page only when asked (see
// [Client.ListSubmissions]). Every call takes [RequestOption] values last: an
// Idempotency-Key of your own ([WithIdempotencyKey]), extra headers ([WithHeader]) and a
// timeout ([WithRequestTimeout]). [Client.API] is the generated client itself, sharing
// the credentials and the retrying transport, for anything else.
//
// # Errors
//
// A non-2xx answer is an [*Error] with the envelope's code, message, param and
// request_id. Branch on Code, never on Message; [IsNotFound], [IsConflict],
// [IsRateLimited] and [IsRetryable] cover the common cases. Error codes are an open set:
// a code this version does not know is judged by its HTTP status class (an unknown 4xx
// is not retryable, a 5xx is). Enumerations in answers are open too: statuses and event
// types this version does not know are passed through unchanged, never rejected.
//
// # Idempotency and retries
//
// Every POST the SDK sends carries an Idempotency-Key, a random UUID made once per call
// and sent again by every retry of it (or your own, with [WithIdempotencyKey]). The
// service keeps the first answer to a key for 24 hours and replays it, with
// Idempotent-Replayed: true, to a repeat with the same body, so a write retried after
// its answer was lost happens once; the key with another body is 422
// idempotency_key_reused. The other writes are safe to repeat by nature: PUT and DELETE,
// and every PATCH of the API, which sets fields to the values sent (the template writes
// also carry expected_revision).
//
// Requests are therefore retried, reads and writes alike, after network errors, 429
// rate_limited, 5xx (internal_error, service_unavailable, authz_not_applied_yet, a
// proxy's 502) and 409 idempotency_key_in_use, with exponential backoff and full jitter,
// honouring retry-after given as seconds or as an HTTP date; see [RetryPolicy], and
// [WithRetryHook] or [WithLogger] to watch them. Not retried: a body that cannot be read
// twice (an upload from a plain io.Reader; give an *os.File or another io.ReadSeeker),
// and answers that a repeat cannot change, such as 409 evaluation_in_progress or
// revision_mismatch. When an attempt's answer was lost and the retry of a delete finds
// the resource already gone, the delete reports success.
//
// # Waiting
//
// Uploads are processed, and evaluations run, in the background. Webhooks tell when they
// are done; without them, [Client.WaitForUploads] polls until uploads leave
// upload_status processing, and [Client.WaitForEvaluation] until an evaluation leaves
// queued and running, both at a polite interval ([DefaultWaitInterval]).
// [Client.ListEventFeed] reads the event stream forward without an endpoint, resuming
// from a stored cursor.
//
// # Webhooks
//
// Package [github.com/doceval/doceval/pkg/sdk/webhook] receives deliveries: it verifies
// the X-Service-Signature header (t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">) or
// the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) over
// the raw body with the endpoint's signing_secret, accepting either secret during a
// rotation, decodes the event envelope and deduplicates on the event id.
// [Client.TestWebhookEndpoint] sends a signed webhook_endpoint.test event to check a
// receiver; [Client.TriggerEvent] sends a signed sample event of any type, marked
// triggered (webhook.Event.Triggered), to build and test a receiver for every type.
//
// # Testing
//
// Package [github.com/doceval/doceval/pkg/sdk/sdktest] is an in-memory fake of the API
// for your tests: sdktest.NewServer(t) serves submissions, uploads, evaluations, events
// and webhook deliveries, and scripts outcomes such as failed uploads, chosen evaluation
// results, errors and lost answers.
package sdk
