package apiserver

import (
	"context"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
)

// ListEventFeed reads the client's events forward from a position (listEventFeed).
func (s *Server) ListEventFeed(ctx context.Context, req api.ListEventFeedRequestObject) (api.ListEventFeedResponseObject, error) {
	return nil, apierr.New(501, apierr.NotImplemented, "not yet")
}

// TestWebhookEndpoint sends a webhook_endpoint.test event to one endpoint (testWebhookEndpoint).
func (s *Server) TestWebhookEndpoint(ctx context.Context, req api.TestWebhookEndpointRequestObject) (api.TestWebhookEndpointResponseObject, error) {
	return nil, apierr.New(501, apierr.NotImplemented, "not yet")
}
