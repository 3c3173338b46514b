package sdk

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// StartEvaluation (startEvaluation) queues an evaluation of the submission's ready
// uploads. 409 evaluation_in_progress means one is already queued or running; 422
// invalid_request that no upload is ready yet (see WaitForUploads). A retry after a
// lost answer sends the same Idempotency-Key, so it cannot start a second evaluation.
func (c *Client) StartEvaluation(ctx context.Context, submissionID uuid.UUID, opts ...RequestOption) (*client.Evaluation, error) {
	return send[client.Evaluation](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.StartEvaluation(ctx, submissionID, nil, editors...)
	})
}

// GetEvaluation (getEvaluation) returns the evaluation, with its result once completed.
// 409 analysis_outdated means a newer evaluation superseded it.
func (c *Client) GetEvaluation(ctx context.Context, submissionID, evaluationID uuid.UUID, opts ...RequestOption) (*client.Evaluation, error) {
	return send[client.Evaluation](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetEvaluation(ctx, submissionID, evaluationID, editors...)
	})
}
