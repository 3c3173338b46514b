package apiserver

import (
	"context"
	"net/http"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
)

// The operations below belong to later issues (evaluations, events and webhooks). Until their handlers land they answer 501
// not_implemented in the error envelope; each one moves to its resource's file when it
// is built.

func notImplemented(op string) error {
	return apierr.New(http.StatusNotImplemented, apierr.NotImplemented, op+" is not implemented yet")
}

func (s *Server) RedeliverEvent(context.Context, api.RedeliverEventRequestObject) (api.RedeliverEventResponseObject, error) {
	return nil, notImplemented("RedeliverEvent")
}

func (s *Server) StartEvaluation(context.Context, api.StartEvaluationRequestObject) (api.StartEvaluationResponseObject, error) {
	return nil, notImplemented("StartEvaluation")
}

func (s *Server) GetEvaluation(context.Context, api.GetEvaluationRequestObject) (api.GetEvaluationResponseObject, error) {
	return nil, notImplemented("GetEvaluation")
}

func (s *Server) ListWebhookEndpoints(context.Context, api.ListWebhookEndpointsRequestObject) (api.ListWebhookEndpointsResponseObject, error) {
	return nil, notImplemented("ListWebhookEndpoints")
}

func (s *Server) CreateWebhookEndpoint(context.Context, api.CreateWebhookEndpointRequestObject) (api.CreateWebhookEndpointResponseObject, error) {
	return nil, notImplemented("CreateWebhookEndpoint")
}

func (s *Server) DeleteWebhookEndpoint(context.Context, api.DeleteWebhookEndpointRequestObject) (api.DeleteWebhookEndpointResponseObject, error) {
	return nil, notImplemented("DeleteWebhookEndpoint")
}

func (s *Server) GetWebhookEndpoint(context.Context, api.GetWebhookEndpointRequestObject) (api.GetWebhookEndpointResponseObject, error) {
	return nil, notImplemented("GetWebhookEndpoint")
}

func (s *Server) UpdateWebhookEndpoint(context.Context, api.UpdateWebhookEndpointRequestObject) (api.UpdateWebhookEndpointResponseObject, error) {
	return nil, notImplemented("UpdateWebhookEndpoint")
}

func (s *Server) RotateWebhookEndpointSecret(context.Context, api.RotateWebhookEndpointSecretRequestObject) (api.RotateWebhookEndpointSecretResponseObject, error) {
	return nil, notImplemented("RotateWebhookEndpointSecret")
}
