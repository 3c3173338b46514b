package sdk

import (
	"context"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// CreateSubmission creates a submission, or returns the existing one with the same
// ExternalSubmissionId (the call is idempotent on it, so it is retried automatically,
// including after 503 authz_not_applied_yet).
func (c *Client) CreateSubmission(ctx context.Context, req client.CreateSubmissionRequest) (*client.Submission, error) {
	return receive[client.Submission](c.api.CreateSubmission(ctx, nil, req))
}

// GetSubmission returns the submission with its slots, uploads and latest evaluation.
func (c *Client) GetSubmission(ctx context.Context, submissionID uuid.UUID) (*client.SubmissionDetail, error) {
	return receive[client.SubmissionDetail](c.api.GetSubmission(ctx, submissionID))
}

// CancelSubmission cancels the submission; canceling a canceled one is a no-op, a
// completed one answers 409 submission_not_cancelable. It is sent once, never retried.
func (c *Client) CancelSubmission(ctx context.Context, submissionID uuid.UUID) (*client.Submission, error) {
	return receive[client.Submission](c.api.CancelSubmission(ctx, submissionID, nil))
}
