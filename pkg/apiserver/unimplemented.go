package apiserver

import (
	"context"
	"net/http"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
)

// The operations below belong to later issues (submissions and uploads, evaluations,
// events and webhooks). Until their handlers land they answer 501
// not_implemented in the error envelope; each one moves to its resource's file when it
// is built.

func notImplemented(op string) error {
	return apierr.New(http.StatusNotImplemented, apierr.NotImplemented, op+" is not implemented yet")
}

func (s *Server) RedeliverEvent(context.Context, api.RedeliverEventRequestObject) (api.RedeliverEventResponseObject, error) {
	return nil, notImplemented("RedeliverEvent")
}

func (s *Server) ListSubmissions(context.Context, api.ListSubmissionsRequestObject) (api.ListSubmissionsResponseObject, error) {
	return nil, notImplemented("ListSubmissions")
}

func (s *Server) CreateSubmission(context.Context, api.CreateSubmissionRequestObject) (api.CreateSubmissionResponseObject, error) {
	return nil, notImplemented("CreateSubmission")
}

func (s *Server) DeleteSubmission(context.Context, api.DeleteSubmissionRequestObject) (api.DeleteSubmissionResponseObject, error) {
	return nil, notImplemented("DeleteSubmission")
}

func (s *Server) GetSubmission(context.Context, api.GetSubmissionRequestObject) (api.GetSubmissionResponseObject, error) {
	return nil, notImplemented("GetSubmission")
}

func (s *Server) UpdateSubmission(context.Context, api.UpdateSubmissionRequestObject) (api.UpdateSubmissionResponseObject, error) {
	return nil, notImplemented("UpdateSubmission")
}

func (s *Server) CancelSubmission(context.Context, api.CancelSubmissionRequestObject) (api.CancelSubmissionResponseObject, error) {
	return nil, notImplemented("CancelSubmission")
}

func (s *Server) CreateSlotUpload(context.Context, api.CreateSlotUploadRequestObject) (api.CreateSlotUploadResponseObject, error) {
	return nil, notImplemented("CreateSlotUpload")
}

func (s *Server) StartEvaluation(context.Context, api.StartEvaluationRequestObject) (api.StartEvaluationResponseObject, error) {
	return nil, notImplemented("StartEvaluation")
}

func (s *Server) GetEvaluation(context.Context, api.GetEvaluationRequestObject) (api.GetEvaluationResponseObject, error) {
	return nil, notImplemented("GetEvaluation")
}

func (s *Server) ListUploads(context.Context, api.ListUploadsRequestObject) (api.ListUploadsResponseObject, error) {
	return nil, notImplemented("ListUploads")
}

func (s *Server) CreateUpload(context.Context, api.CreateUploadRequestObject) (api.CreateUploadResponseObject, error) {
	return nil, notImplemented("CreateUpload")
}

func (s *Server) DeleteUpload(context.Context, api.DeleteUploadRequestObject) (api.DeleteUploadResponseObject, error) {
	return nil, notImplemented("DeleteUpload")
}

func (s *Server) GetUpload(context.Context, api.GetUploadRequestObject) (api.GetUploadResponseObject, error) {
	return nil, notImplemented("GetUpload")
}

func (s *Server) UpdateUpload(context.Context, api.UpdateUploadRequestObject) (api.UpdateUploadResponseObject, error) {
	return nil, notImplemented("UpdateUpload")
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
