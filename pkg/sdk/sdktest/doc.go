// Package sdktest is an in-memory fake of the doceval API for partners' tests: a local
// HTTP server that answers the SDK (or any HTTP client) like the service, for the
// partner flow of creating a submission, uploading documents, evaluating them and
// learning about it through events and webhooks.
//
//	func TestOnboarding(t *testing.T) {
//		srv := sdktest.NewServer(t)
//		c := srv.Client() // or sdk.New(srv.URL, srv.APIKey)
//		…code under test using c…
//	}
//
// # What it covers
//
//   - Authentication: any "Authorization: Bearer dek_…" key is accepted, as one API
//     client; anything else is 401 invalid_api_key. Every answer carries x-request-id,
//     and every error the envelope {"error": {"code", "message", "param", "request_id"}}.
//   - Templates: listTemplates and getTemplate, with the builtin templates
//     personal_real_estate_financing (the default) and personal_loan and the document
//     requirements the API documents for them.
//   - Submissions: createSubmission (idempotent on external_submission_id: 201 new, 200
//     existing), getSubmission with document slots, unassigned uploads and the latest
//     evaluation, listSubmissions with its filters, cancelSubmission.
//   - Uploads: createUpload and createSlotUpload (multipart, idempotent on
//     external_file_id, content type checked against the file's first bytes),
//     getUpload, listUploads. An upload is answered processing and is ready by the next
//     read, or, WithManualUploads, when ReadyUpload or FailUpload says so.
//   - Evaluations: startEvaluation and getEvaluation. An evaluation is answered queued
//     and is completed by the next read, or, WithManualEvaluations, when
//     CompleteEvaluation or FailEvaluation says so. SetEvaluationResult scripts the
//     result; without it one is made up from the template (everything passes).
//   - Events: file.ready, file.failed and evaluation.started, .completed, .failed and
//     .canceled as the flow above goes, plus any Emit adds; listEvents, listEventFeed
//     (with after, from_start, type and long polling with wait), getEvent with its
//     deliveries, redeliverEvent.
//   - Webhooks: createWebhookEndpoint, listWebhookEndpoints, getWebhookEndpoint,
//     deleteWebhookEndpoint, testWebhookEndpoint. Events are POSTed in the background
//     to the endpoints subscribed to them, signed in X-Service-Signature and the
//     Standard Webhooks headers with the endpoint's signing_secret exactly as the service
//     signs (verify them with package webhook); WaitForDeliveries waits for them.
//   - Idempotency-Key on every POST, with the service's rules: the first answer is
//     replayed with Idempotent-Replayed: true, another body is 422
//     idempotency_key_reused, a key still in use is 409 idempotency_key_in_use, and
//     5xx, 429, 401 and 403 answers are not kept.
//   - Scripted trouble: FailNext answers an operation's next call with any error, and
//     LoseNextAnswer handles it but closes the connection instead of answering, so
//     tests can check a client's retries; Calls counts the requests of an operation.
//
// # What it does not cover
//
// Every other operation (template writes, the catalog of checks, data fields and
// document types, updateSubmission, deleteSubmission, updateUpload, deleteUpload,
// updateWebhookEndpoint, rotateWebhookEndpointSecret) answers 501 not_implemented.
// Documents are not read: there is no classification, extraction or real result,
// evaluations do not report progress (no evaluation.progress), and slots are never
// reviewed (no document_slot.updated). A failed webhook delivery is not retried on the
// service's schedule but abandoned after one attempt; delivery targets are not checked
// against private addresses. Rate limits, permissions, disabled clients, purges,
// retention, authorization propagation (503 authz_not_applied_yet) and the service's
// exact validation messages are not modelled; use FailNext for the errors a test needs.
// Labels, descriptions and the check and data-field items of the templates are
// placeholders. State lives in memory until Close.
package sdktest
