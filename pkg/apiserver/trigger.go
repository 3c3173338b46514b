package apiserver

import (
	"context"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/events/samples"
)

// TriggerEvent emits a sample event of the requested type, its data the spec's example
// for the type and marked triggered, to the subscribed endpoints or to the one named
// (triggerEvent).
func (s *Server) TriggerEvent(ctx context.Context, req api.TriggerEventRequestObject) (api.TriggerEventResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, apierr.Field("type", "type is required")
	}
	typ := events.Type(req.Body.Type)
	data, ok, err := samples.Data(typ)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Field("type", "type must be one of the event types of EventType")
	}
	ev, err := t.TriggerEvent(ctx, typ, data, req.Body.EndpointId)
	if err != nil {
		return nil, err
	}
	detail, err := s.eventDetail(ctx, ev)
	if err != nil {
		return nil, err
	}
	return api.TriggerEvent202JSONResponse{Body: detail}, nil
}
