package apiserver

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/domain/webhook"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// SecretPrefix starts every signing secret, so leaked ones are recognizable.
const SecretPrefix = "whsec_"

// newSigningSecret returns 256 bits of randomness in standard base64 with padding, the
// form the Standard Webhooks libraries decode (webhook-signature is keyed with those
// bytes, X-Service-Signature with the whole string). Secrets issued before were URL-safe
// without padding; the dispatcher decodes both (dispatch.StandardKey).
func newSigningSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// checkWebhookURL applies createWebhookEndpoint's url rule: https, or http only for the loopback hosts.
func checkWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	bad := func(why string) error { return apierr.Field("url", "url "+why) }
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return bad("must be an absolute https URL")
	case u.User != nil:
		return bad("must not carry credentials; authenticate deliveries with the signature")
	case u.Fragment != "":
		return bad("must not have a fragment")
	}
	host := strings.ToLower(u.Hostname())
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if host == "localhost" || host == "127.0.0.1" || host == "::1" || net.ParseIP(host).Equal(net.IPv6loopback) {
			return nil
		}
		return bad("must use https; plain http is allowed only for 127.0.0.1, ::1 and localhost")
	}
	return bad("must use https")
}

func eventTypes(in []api.EventType) []string {
	out := make([]string, len(in))
	for i, e := range in {
		out[i] = string(e)
	}
	return out
}

func endpointToAPI(w webhook.Endpoint) api.WebhookEndpoint {
	out := api.WebhookEndpoint{
		Id: w.ID, Url: w.URL, Description: w.Description, Status: api.WebhookEndpointStatus(w.Status), CreatedAt: w.CreatedAt,
	}
	if w.Events != nil {
		evs := enums[api.EventType](w.Events)
		out.Events = &evs
	}
	return out
}

func (s *Server) sealer(secret string) func(uuid.UUID) []byte {
	return func(id uuid.UUID) []byte { return s.secrets.Seal([]byte(secret), id[:]) }
}

// CreateWebhookEndpoint registers an endpoint and returns its signing secret, once.
func (s *Server) CreateWebhookEndpoint(ctx context.Context, req api.CreateWebhookEndpointRequestObject) (api.CreateWebhookEndpointResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if err := checkWebhookURL(b.Url); err != nil {
		return nil, err
	}
	var events []string
	if b.Events != nil {
		events = eventTypes(*b.Events)
	}
	secret := newSigningSecret()
	w, err := t.CreateWebhookEndpoint(ctx, b.Url, strOr(b.Description, ""), events, s.sealer(secret))
	if err != nil {
		return nil, err
	}
	e := endpointToAPI(w)
	return api.CreateWebhookEndpoint201JSONResponse{Body: api.WebhookEndpointWithSecret{
		Id: e.Id, Url: e.Url, Description: e.Description, Events: e.Events, Status: e.Status, CreatedAt: e.CreatedAt,
		SigningSecret: secret,
	}}, nil
}

// ListWebhookEndpoints lists the client's endpoints newest first, without secrets.
func (s *Server) ListWebhookEndpoints(ctx context.Context, req api.ListWebhookEndpointsRequestObject) (api.ListWebhookEndpointsResponseObject, error) {
	t, limit, after, err := s.listStart(ctx, (*int)(req.Params.Limit), (*string)(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	rows, err := t.WebhookEndpoints(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	rows, next := page.Trim(rows, limit, store.WebhookEndpointCursor)
	list := api.WebhookEndpointList{Data: make([]api.WebhookEndpoint, len(rows)), NextCursor: next}
	for i, r := range rows {
		list.Data[i] = endpointToAPI(r)
	}
	return api.ListWebhookEndpoints200JSONResponse{Body: list}, nil
}

// GetWebhookEndpoint reads one endpoint, without its secret.
func (s *Server) GetWebhookEndpoint(ctx context.Context, req api.GetWebhookEndpointRequestObject) (api.GetWebhookEndpointResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	w, err := t.WebhookEndpoint(ctx, req.EndpointId)
	if err != nil {
		return nil, err
	}
	return api.GetWebhookEndpoint200JSONResponse{Body: endpointToAPI(w)}, nil
}

// UpdateWebhookEndpoint changes url, description, events and status; the secret stays.
func (s *Server) UpdateWebhookEndpoint(ctx context.Context, req api.UpdateWebhookEndpointRequestObject) (api.UpdateWebhookEndpointResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	c := webhook.Change{URL: b.Url, Description: b.Description, Status: (*string)(b.Status)}
	if b.Url != nil {
		if err := checkWebhookURL(*b.Url); err != nil {
			return nil, err
		}
	}
	switch {
	case b.Events.IsNull():
		c.SetEvents = true
	case b.Events.IsSpecified():
		c.SetEvents, c.Events = true, eventTypes(b.Events.MustGet())
	}
	w, err := t.UpdateWebhookEndpoint(ctx, req.EndpointId, c)
	if err != nil {
		return nil, err
	}
	return api.UpdateWebhookEndpoint200JSONResponse{Body: endpointToAPI(w)}, nil
}

// DeleteWebhookEndpoint removes an endpoint; a second delete is 404.
func (s *Server) DeleteWebhookEndpoint(ctx context.Context, req api.DeleteWebhookEndpointRequestObject) (api.DeleteWebhookEndpointResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.DeleteWebhookEndpoint(ctx, req.EndpointId); err != nil {
		return nil, err
	}
	return api.DeleteWebhookEndpoint204Response{}, nil
}

// RotateWebhookEndpointSecret issues a new secret; the previous one stays valid for the
// grace period (DOCEVAL_SECRET_ROTATION_GRACE).
func (s *Server) RotateWebhookEndpointSecret(ctx context.Context, req api.RotateWebhookEndpointSecretRequestObject) (api.RotateWebhookEndpointSecretResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	secret := newSigningSecret()
	w, err := t.RotateWebhookSecret(ctx, req.EndpointId, s.rotationGrace, s.sealer(secret))
	if err != nil {
		return nil, err
	}
	return api.RotateWebhookEndpointSecret201JSONResponse{Body: api.SecretRotation{
		SigningSecret: secret, PreviousSecretExpiresAt: *w.PreviousSecretExpiresAt,
	}}, nil
}
