package apiserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/store"
)

// evaluationToAPI maps an evaluation to the contract's shape. The store's JSON form is
// the one events carry, so responses and events cannot drift apart.
func evaluationToAPI(e store.Evaluation) (api.Evaluation, error) {
	var out api.Evaluation
	raw, err := json.Marshal(e)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("evaluation %s: %w", e.ID, err)
	}
	return out, nil
}

// StartEvaluation queues an evaluation over the submission's ready uploads (startEvaluation).
func (s *Server) StartEvaluation(ctx context.Context, req api.StartEvaluationRequestObject) (api.StartEvaluationResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	e, err := t.StartEvaluation(ctx, req.SubmissionId)
	if err != nil {
		return nil, err
	}
	body, err := evaluationToAPI(e)
	if err != nil {
		return nil, err
	}
	return api.StartEvaluation202JSONResponse{Body: body}, nil
}

// GetEvaluation reads an evaluation; a superseded one answers 409 analysis_outdated.
func (s *Server) GetEvaluation(ctx context.Context, req api.GetEvaluationRequestObject) (api.GetEvaluationResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	e, err := t.Evaluation(ctx, req.SubmissionId, req.EvaluationId)
	if err != nil {
		return nil, err
	}
	body, err := evaluationToAPI(e)
	if err != nil {
		return nil, err
	}
	return api.GetEvaluation200JSONResponse{Body: body}, nil
}
