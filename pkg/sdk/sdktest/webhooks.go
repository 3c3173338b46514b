package sdktest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// newSigningSecret is made as the service makes endpoint secrets: 256 random bits in
// standard base64, which the Standard Webhooks libraries take as is.
func newSigningSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// deliveryTimeout bounds one delivery; the service waits 30 s, tests should not.
const deliveryTimeout = 10 * time.Second

// maxActiveEndpoints is the service's limit per API client.
const maxActiveEndpoints = 20

type endpoint struct {
	client.WebhookEndpoint
	secret  string
	deleted bool
}

func (ep *endpoint) receives(typ client.EventType) bool {
	return !ep.deleted && ep.Status == client.Active && (ep.Events == nil || slices.Contains(*ep.Events, typ))
}

// delivery is one queued attempt to deliver an event to an endpoint.
type delivery struct {
	event    *event
	endpoint *endpoint
	record   *client.Delivery
}

func (s *Server) queueDelivery(ev *event, ep *endpoint) {
	record := &client.Delivery{
		EndpointId: ep.Id, EndpointUrl: ep.Url, DeliveryStatus: client.DeliveryStatusPending, Attempts: []client.DeliveryAttempt{},
	}
	ev.deliveries = append(ev.deliveries, record)
	s.queue = append(s.queue, delivery{event: ev, endpoint: ep, record: record})
	s.changed.Broadcast()
}

func (s *Server) createWebhookEndpoint(c *call) (int, any, error) {
	var req client.CreateWebhookEndpointRequest
	if err := c.decode(&req, false); err != nil {
		return 0, nil, err
	}
	if err := checkEndpointURL(req.Url); err != nil {
		return 0, nil, err
	}
	if req.Events != nil {
		for _, typ := range *req.Events {
			if _, err := eventTypeParam("events", string(typ)); err != nil {
				return 0, nil, err
			}
		}
	}
	active := 0
	for _, ep := range s.endpoints {
		if !ep.deleted && ep.Status == client.Active {
			active++
		}
	}
	if active >= maxActiveEndpoints {
		return 0, nil, invalidField("url", "at most 20 active webhook endpoints")
	}
	ep := &endpoint{secret: newSigningSecret(), WebhookEndpoint: client.WebhookEndpoint{
		Id: uuid.New(), Url: req.Url, Events: req.Events, Status: client.Active, CreatedAt: now(),
	}}
	if req.Description != nil {
		ep.Description = *req.Description
	}
	s.endpoints = append(s.endpoints, ep)
	return http.StatusCreated, client.WebhookEndpointWithSecret{
		Id: ep.Id, Url: ep.Url, Description: ep.Description, Events: ep.Events, Status: ep.Status,
		CreatedAt: ep.CreatedAt, SigningSecret: ep.secret,
	}, nil
}

// checkEndpointURL applies the service's rule: https, or http to a loopback host.
func checkEndpointURL(raw string) error {
	u, err := url.Parse(raw)
	loopback := err == nil && (u.Hostname() == "localhost" || net.ParseIP(u.Hostname()).IsLoopback())
	if err != nil || len(raw) > 2048 || u.Host == "" || !(u.Scheme == "https" || u.Scheme == "http" && loopback) {
		return invalidField("url", "url must be https, or http to 127.0.0.1, ::1 or localhost")
	}
	return nil
}

func (s *Server) findEndpointByID(id uuid.UUID) *endpoint {
	for _, ep := range s.endpoints {
		if ep.Id == id && !ep.deleted {
			return ep
		}
	}
	return nil
}

func (s *Server) findEndpoint(c *call) (*endpoint, error) {
	id, err := c.uuidParam("endpoint_id")
	if err != nil {
		return nil, err
	}
	if ep := s.findEndpointByID(id); ep != nil {
		return ep, nil
	}
	return nil, notFound("webhook endpoint")
}

func (s *Server) listWebhookEndpoints(c *call) (int, any, error) {
	var listed []client.WebhookEndpoint
	for _, ep := range s.endpoints {
		if !ep.deleted {
			listed = append(listed, ep.WebhookEndpoint)
		}
	}
	page, err := paginate(c, listed)
	return http.StatusOK, page, err
}

func (s *Server) getWebhookEndpoint(c *call) (int, any, error) {
	ep, err := s.findEndpoint(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, ep.WebhookEndpoint, nil
}

func (s *Server) deleteWebhookEndpoint(c *call) (int, any, error) {
	ep, err := s.findEndpoint(c)
	if err != nil {
		return 0, nil, err
	}
	ep.deleted = true
	s.queue = slices.DeleteFunc(s.queue, func(d delivery) bool { return d.endpoint == ep })
	for _, ev := range s.events {
		for _, dl := range ev.deliveries {
			if dl.EndpointId == ep.Id && dl.DeliveryStatus == client.DeliveryStatusPending {
				dl.DeliveryStatus = client.DeliveryStatusFailedPermanent
			}
		}
	}
	return http.StatusNoContent, nil, nil
}

// testWebhookEndpoint emits webhook_endpoint.test and delivers it to this endpoint only.
func (s *Server) testWebhookEndpoint(c *call) (int, any, error) {
	ep, err := s.findEndpoint(c)
	if err != nil {
		return 0, nil, err
	}
	if ep.Status != client.Active {
		return 0, nil, invalidField("endpoint_id", "the endpoint is disabled")
	}
	ev := s.addEvent(client.EventTypeWebhookEndpointTest, map[string]any{
		"webhook_endpoint_id": ep.Id, "message": "A test event from sdktest.",
	})
	s.queueDelivery(ev, ep)
	return http.StatusAccepted, ev.detail(), nil
}

// deliverEvents is the delivery worker: one delivery at a time, in the order queued,
// each tried once (no retry schedule; RedeliverEvent queues it again).
func (s *Server) deliverEvents() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.queue) == 0 && !s.closed {
			s.changed.Wait()
		}
		if s.closed {
			return
		}
		job := s.queue[0]
		s.queue = s.queue[1:]
		s.inFlight++
		body, _ := json.Marshal(job.event.Event)
		target, secret := job.endpoint.Url, job.endpoint.secret
		s.mu.Unlock()
		attempt := s.post(target, secret, job.event.Id, body)
		s.mu.Lock()
		s.inFlight--
		record := job.record
		attempt.AttemptNumber = len(record.Attempts) + 1
		record.Attempts = append(record.Attempts, attempt)
		record.AttemptCount, record.LastAttemptedAt = len(record.Attempts), &attempt.AttemptedAt
		record.DeliveryStatus = client.DeliveryStatusSucceeded
		if attempt.Outcome != client.DeliveryAttemptOutcomeSucceeded {
			record.DeliveryStatus = client.DeliveryStatusAbandoned
		}
		if job.endpoint.deleted {
			record.DeliveryStatus = client.DeliveryStatusFailedPermanent
		}
		s.changed.Broadcast()
	}
}

// post sends one signed delivery, as the service does, and describes the attempt.
func (s *Server) post(target, secret, id string, body []byte) client.DeliveryAttempt {
	attempt := client.DeliveryAttempt{AttemptedAt: now(), Outcome: client.DeliveryAttemptOutcomeNetworkError}
	req, err := http.NewRequestWithContext(s.stop, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		reason := "network error"
		attempt.TransportError = &reason
		return attempt
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "doceval-sdktest")
	webhook.SignRequest(req.Header, id, body, time.Now(), secret)
	res, err := s.deliver.Do(req)
	elapsed := int(time.Since(attempt.AttemptedAt).Milliseconds())
	attempt.ResponseTimeMs = &elapsed
	if err != nil {
		reason := "network error"
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			attempt.Outcome, reason = client.DeliveryAttemptOutcomeTimeout, "timeout"
		}
		attempt.TransportError = &reason
		return attempt
	}
	res.Body.Close()
	attempt.ResponseStatus = &res.StatusCode
	attempt.Outcome = client.DeliveryAttemptOutcomeHttpError
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		attempt.Outcome = client.DeliveryAttemptOutcomeSucceeded
	}
	return attempt
}

// WaitForDeliveries blocks until every webhook delivery queued so far has been tried,
// or ctx ends. Deliveries run in the background, as with the service, so call it before
// checking what a receiver got.
func (s *Server) WaitForDeliveries(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.changed.Broadcast()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for (len(s.queue) > 0 || s.inFlight > 0) && !s.closed && ctx.Err() == nil {
		s.changed.Wait()
	}
	return ctx.Err()
}
