package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// ListEvents lists the client's events newest first (listEvents).
func (s *Server) ListEvents(ctx context.Context, req api.ListEventsRequestObject) (api.ListEventsResponseObject, error) {
	t, limit, after, err := s.listStart(ctx, (*int)(req.Params.Limit), (*string)(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	rows, err := t.Events(ctx, store.EventFilter{
		Type: (*string)(req.Params.Type), SubmissionID: req.Params.SubmissionId, After: after, Limit: limit,
	})
	if err != nil {
		return nil, err
	}
	rows, next := page.Trim(rows, limit, store.StoredEvent.Cursor)
	list := api.EventList{Data: make([]api.Event, len(rows)), NextCursor: next}
	for i, r := range rows {
		if err := json.Unmarshal(r.Envelope, &list.Data[i]); err != nil {
			return nil, fmt.Errorf("event %s: %w", r.ID, err)
		}
	}
	return api.ListEvents200JSONResponse{Body: list}, nil
}

// GetEvent returns one event with its webhook deliveries and all their attempts.
func (s *Server) GetEvent(ctx context.Context, req api.GetEventRequestObject) (api.GetEventResponseObject, error) {
	r, err := s.event(ctx, req.EventId)
	if err != nil {
		return nil, err
	}
	detail, err := s.eventDetail(ctx, r)
	if err != nil {
		return nil, err
	}
	return api.GetEvent200JSONResponse{Body: detail}, nil
}

func deliveriesToAPI(ds []store.Delivery) []api.Delivery {
	out := make([]api.Delivery, len(ds))
	for i, d := range ds {
		out[i] = api.Delivery{
			EndpointId: d.EndpointID, EndpointUrl: d.EndpointURL, DeliveryStatus: api.DeliveryStatus(d.Status),
			AttemptCount: d.AttemptCount, NextRetryAt: d.NextRetryAt, LastAttemptedAt: d.LastAttemptedAt,
			Attempts: make([]api.DeliveryAttempt, len(d.Attempts)),
		}
		for j, a := range d.Attempts {
			ms := a.ResponseTimeMs
			out[i].Attempts[j] = api.DeliveryAttempt{
				AttemptNumber: a.Number, AttemptedAt: a.AttemptedAt, Outcome: api.DeliveryAttemptOutcome(a.Outcome),
				ResponseStatus: a.ResponseStatus, TransportError: a.TransportError, ResponseTimeMs: &ms,
			}
		}
	}
	return out
}

// RedeliverEvent requeues an event's deliveries (redeliverEvent).
func (s *Server) RedeliverEvent(ctx context.Context, req api.RedeliverEventRequestObject) (api.RedeliverEventResponseObject, error) {
	r, err := s.event(ctx, req.EventId)
	if err != nil {
		return nil, err
	}
	var endpoint *uuid.UUID
	if req.Body != nil {
		endpoint = req.Body.EndpointId
	}
	n, err := s.store.Redeliver(ctx, r.ID, endpoint)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if endpoint != nil {
			return nil, apierr.Field("endpoint_id", "the event has no delivery to this endpoint")
		}
		return nil, apierr.New(http.StatusUnprocessableEntity, apierr.InvalidField, "the event has no failed or abandoned delivery to requeue")
	}
	detail, err := s.eventDetail(ctx, r)
	if err != nil {
		return nil, err
	}
	return api.RedeliverEvent200JSONResponse{Body: detail}, nil
}

// eventDetail is the stored envelope with the event's deliveries and their attempts.
func (s *Server) eventDetail(ctx context.Context, r store.StoredEvent) (api.EventDetail, error) {
	detail := api.EventDetail{}
	if err := json.Unmarshal(r.Envelope, &detail); err != nil {
		return detail, fmt.Errorf("event %s: %w", r.ID, err)
	}
	deliveries, err := s.store.EventDeliveries(ctx, r.ID)
	if err != nil {
		return detail, err
	}
	detail.Deliveries = deliveriesToAPI(deliveries)
	return detail, nil
}

// event reads one of the client's events by its public id.
func (s *Server) event(ctx context.Context, ref api.EventIdParam) (store.StoredEvent, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return store.StoredEvent{}, err
	}
	id, err := events.ParseID(string(ref))
	if err != nil {
		return store.StoredEvent{}, apierr.Field("event_id", "event_id must be evt_ followed by a lowercase UUID")
	}
	return t.Event(ctx, id)
}
