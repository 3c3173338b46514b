package apiserver

import (
	"context"
	"net/http"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
)

// The operations below belong to the evaluations issue. Until their handlers land they answer 501
// not_implemented in the error envelope; each one moves to its resource's file when it
// is built.

func notImplemented(op string) error {
	return apierr.New(http.StatusNotImplemented, apierr.NotImplemented, op+" is not implemented yet")
}

func (s *Server) StartEvaluation(context.Context, api.StartEvaluationRequestObject) (api.StartEvaluationResponseObject, error) {
	return nil, notImplemented("StartEvaluation")
}

func (s *Server) GetEvaluation(context.Context, api.GetEvaluationRequestObject) (api.GetEvaluationResponseObject, error) {
	return nil, notImplemented("GetEvaluation")
}
