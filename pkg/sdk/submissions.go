package sdk

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// CreateSubmission (createSubmission) creates a submission, or returns the existing one
// with the same ExternalSubmissionId: the call is idempotent on it, and on its
// Idempotency-Key, so it is retried automatically, including after 503
// authz_not_applied_yet.
func (c *Client) CreateSubmission(ctx context.Context, req client.CreateSubmissionRequest, opts ...RequestOption) (*client.Submission, error) {
	return send[client.Submission](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.CreateSubmission(ctx, nil, req, editors...)
	})
}

// GetSubmission (getSubmission) returns the submission with its slots, uploads and
// latest evaluation.
func (c *Client) GetSubmission(ctx context.Context, submissionID uuid.UUID, opts ...RequestOption) (*client.SubmissionDetail, error) {
	return send[client.SubmissionDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetSubmission(ctx, submissionID, editors...)
	})
}

// UpdateSubmission (updateSubmission) replaces the submission's metadata as a whole.
func (c *Client) UpdateSubmission(ctx context.Context, submissionID uuid.UUID, req client.UpdateSubmissionRequest, opts ...RequestOption) (*client.Submission, error) {
	return send[client.Submission](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateSubmission(ctx, submissionID, req, editors...)
	})
}

// DeleteSubmission (deleteSubmission) deletes the submission in any state; its data is
// purged in the background, during which every call on it answers 409
// partner_data_purge_in_progress, and 404 not_found afterwards. When an attempt's
// answer was lost and the retry meets the purge, the deletion was accepted and the call
// returns nil.
func (c *Client) DeleteSubmission(ctx context.Context, submissionID uuid.UUID, opts ...RequestOption) error {
	purging := func(e *Error) bool { return e.Code == "partner_data_purge_in_progress" }
	return sendDelete(ctx, opts, purging, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteSubmission(ctx, submissionID, editors...)
	})
}

// CancelSubmission (cancelSubmission) moves the submission to canceled; canceling a
// canceled one is a no-op, a completed one answers 409 submission_not_cancelable.
func (c *Client) CancelSubmission(ctx context.Context, submissionID uuid.UUID, opts ...RequestOption) (*client.Submission, error) {
	return send[client.Submission](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.CancelSubmission(ctx, submissionID, nil, editors...)
	})
}
