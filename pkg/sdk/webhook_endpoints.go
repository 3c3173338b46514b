package sdk

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// CreateWebhookEndpoint (createWebhookEndpoint) registers an endpoint. The answer is the
// only read that carries signing_secret besides a rotation: store it, it verifies the
// deliveries (see package webhook). A retry after a lost answer sends the same
// Idempotency-Key and gets that answer back, so it never registers a second endpoint
// (which would receive every event twice).
func (c *Client) CreateWebhookEndpoint(ctx context.Context, req client.CreateWebhookEndpointRequest, opts ...RequestOption) (*client.WebhookEndpointWithSecret, error) {
	return send[client.WebhookEndpointWithSecret](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.CreateWebhookEndpoint(ctx, nil, req, editors...)
	})
}

// GetWebhookEndpoint (getWebhookEndpoint) returns the endpoint without its secret; a
// deleted one is 404 not_found.
func (c *Client) GetWebhookEndpoint(ctx context.Context, endpointID uuid.UUID, opts ...RequestOption) (*client.WebhookEndpoint, error) {
	return send[client.WebhookEndpoint](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetWebhookEndpoint(ctx, endpointID, editors...)
	})
}

// UpdateWebhookEndpoint (updateWebhookEndpoint) changes url, description, events and/or
// status; the secret stays. Events emitted while an endpoint is disabled are never
// delivered to it later.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, endpointID uuid.UUID, req client.UpdateWebhookEndpointRequest, opts ...RequestOption) (*client.WebhookEndpoint, error) {
	return send[client.WebhookEndpoint](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.UpdateWebhookEndpoint(ctx, endpointID, req, editors...)
	})
}

// DeleteWebhookEndpoint (deleteWebhookEndpoint) deactivates the endpoint; its pending
// deliveries become failed_permanent. Deleting a deleted endpoint is 404 not_found,
// except after an attempt whose answer was lost: then the call returns nil.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, endpointID uuid.UUID, opts ...RequestOption) error {
	return sendDelete(ctx, opts, goneNotFound, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.DeleteWebhookEndpoint(ctx, endpointID, editors...)
	})
}

// RotateWebhookEndpointSecret (rotateWebhookEndpointSecret) issues a new signing
// secret. Until previous_secret_expires_at deliveries are signed with both, so
// receivers can switch without losing any; verify with both meanwhile.
func (c *Client) RotateWebhookEndpointSecret(ctx context.Context, endpointID uuid.UUID, opts ...RequestOption) (*client.SecretRotation, error) {
	return send[client.SecretRotation](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.RotateWebhookEndpointSecret(ctx, endpointID, nil, editors...)
	})
}

// TestWebhookEndpoint (testWebhookEndpoint) sends a signed webhook_endpoint.test event
// to this endpoint only, whatever its events filter, to check a receiver. It returns
// the event with its queued delivery; GetEvent shows how the delivery went. A disabled
// endpoint is 422 invalid_field (param endpoint_id).
func (c *Client) TestWebhookEndpoint(ctx context.Context, endpointID uuid.UUID, opts ...RequestOption) (*client.EventDetail, error) {
	return send[client.EventDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.TestWebhookEndpoint(ctx, endpointID, nil, editors...)
	})
}
