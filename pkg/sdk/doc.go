// Package sdk is the hand-written Go layer partners use on top of the generated doceval
// client (github.com/doceval/doceval/gen/client).
//
// It adds what a generated client cannot know:
//
//   - safe automatic retries: 429, 503, other 5xx and network errors are retried with
//     exponential backoff and full jitter, but only for requests that are safe to
//     repeat (GET/HEAD, submission creates keyed by external_submission_id and uploads
//     keyed by external_file_id);
//   - one typed error, *Error, for every non-2xx answer, with helpers such as
//     IsNotFound and IsRetryable that follow the contract's error table and fall back
//     to the HTTP status class for codes this version does not know;
//   - streaming uploads with progress, a polite evaluation waiter, and iterators over
//     every list endpoint.
//
// Enumerations are open: statuses, event types and error codes this version does not
// know are passed through unchanged, never rejected. Anything the thin layer does not
// wrap is reachable through Client.API, which shares the retrying transport.
package sdk
