package sdktest

import (
	"net/http"
	"slices"

	"github.com/doceval/doceval/gen/client"
)

// triggerEvent emits a sample event of the requested type, marked triggered (the
// service's triggerEvent): to the endpoint named, whatever its filter, else to the
// endpoints subscribed to the type. Its data is empty: the service sends its spec's
// example for the type, which the fake does not carry.
func (s *Server) triggerEvent(c *call) (int, any, error) {
	var req client.TriggerEventRequest
	if err := c.decode(&req, false); err != nil {
		return 0, nil, err
	}
	if !slices.Contains(knownEventTypes, req.Type) {
		return 0, nil, invalidField("type", "type must be one of the event types")
	}
	var target *endpoint
	if req.EndpointId != nil {
		if target = s.findEndpointByID(*req.EndpointId); target == nil || target.Status != client.Active {
			return 0, nil, invalidField("endpoint_id", "no active webhook endpoint with this id")
		}
	}
	ev := s.addEvent(req.Type, nil)
	triggered := true
	ev.Triggered = &triggered
	for _, ep := range s.endpoints {
		if ep == target || (target == nil && req.Type != client.EventTypeWebhookEndpointTest && ep.receives(req.Type)) {
			s.queueDelivery(ev, ep)
		}
	}
	return http.StatusAccepted, ev.detail(), nil
}
