package apiserver

import (
	"context"

	"github.com/doceval/doceval/gen/api"
)

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
