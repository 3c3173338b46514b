package sdk

import (
	"context"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// StartEvaluation queues an evaluation of the submission's ready uploads. It is sent
// once, never retried: a repeat could start a second evaluation. 409
// evaluation_in_progress means one is already queued or running.
func (c *Client) StartEvaluation(ctx context.Context, submissionID uuid.UUID) (*client.Evaluation, error) {
	return receive[client.Evaluation](c.api.StartEvaluation(ctx, submissionID, nil))
}

// GetEvaluation returns the evaluation, with its result once completed. 409
// analysis_outdated means a newer evaluation superseded it.
func (c *Client) GetEvaluation(ctx context.Context, submissionID, evaluationID uuid.UUID) (*client.Evaluation, error) {
	return receive[client.Evaluation](c.api.GetEvaluation(ctx, submissionID, evaluationID))
}
