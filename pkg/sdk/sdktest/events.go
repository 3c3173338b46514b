package sdktest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
)

// event is one entry of the event log with its deliveries.
type event struct {
	client.Event
	submissionID *uuid.UUID
	deliveries   []*client.Delivery
}

// knownEventTypes are the event types query filters and endpoint filters accept.
var knownEventTypes = []client.EventType{
	client.EventTypeFileReady, client.EventTypeFileFailed, client.EventTypeDocumentSlotUpdated,
	client.EventTypeEvaluationStarted, client.EventTypeEvaluationProgress, client.EventTypeEvaluationCompleted,
	client.EventTypeEvaluationFailed, client.EventTypeEvaluationCanceled, client.EventTypeWebhookEndpointTest,
}

// Emit adds an event of typ to the event log as if the service had emitted it and
// delivers it to the webhook endpoints subscribed to typ. data is the event's data
// object, for example {"upload": …} for file.ready (see the XxxEventData types of the
// generated client); the fake does not check it against typ. It returns the event.
func (s *Server) Emit(typ client.EventType, data map[string]any) client.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emitLocked(typ, data).Event
}

// emitLocked appends an event and queues its deliveries; s.mu is held.
func (s *Server) emitLocked(typ client.EventType, data map[string]any) *event {
	ev := s.addEvent(typ, data)
	for _, ep := range s.endpoints {
		if ep.receives(typ) {
			s.queueDelivery(ev, ep)
		}
	}
	return ev
}

// addEvent appends an event without routing it; s.mu is held.
func (s *Server) addEvent(typ client.EventType, data map[string]any) *event {
	// Through JSON, so Data holds what a client decoding the event would see.
	var plain map[string]any
	b, _ := json.Marshal(data)
	_ = json.Unmarshal(b, &plain)
	if plain == nil {
		plain = map[string]any{}
	}
	ev := &event{Event: client.Event{
		Id: "evt_" + uuid.NewString(), Type: typ, CreatedAt: now(), ApiClientId: s.ClientID, Data: plain,
	}}
	ev.submissionID = submissionOf(plain)
	s.events = append(s.events, ev)
	close(s.eventAdded)
	s.eventAdded = make(chan struct{})
	return ev
}

// submissionOf finds the submission an event is about in its data.
func submissionOf(data map[string]any) *uuid.UUID {
	candidates := []any{data["submission_id"]}
	for _, nested := range []string{"upload", "evaluation"} {
		if m, ok := data[nested].(map[string]any); ok {
			candidates = append(candidates, m["submission_id"])
		}
	}
	for _, c := range candidates {
		if s, ok := c.(string); ok {
			if id, err := uuid.Parse(s); err == nil {
				return &id
			}
		}
	}
	return nil
}

func eventTypeParam(param, v string) (client.EventType, error) {
	if !slices.Contains(knownEventTypes, client.EventType(v)) {
		return "", invalidField(param, "unknown event type "+v)
	}
	return client.EventType(v), nil
}

func (s *Server) listEvents(c *call) (int, any, error) {
	q := c.r.URL.Query()
	var typ client.EventType
	if q.Has("type") {
		var err error
		if typ, err = eventTypeParam("type", q.Get("type")); err != nil {
			return 0, nil, err
		}
	}
	var about *uuid.UUID
	if q.Has("submission_id") {
		id, err := uuid.Parse(q.Get("submission_id"))
		if err != nil {
			return 0, nil, invalidField("submission_id", "submission_id must be a UUID")
		}
		about = &id
	}
	var matching []client.Event
	for _, ev := range slices.Backward(s.events) { // newest first
		if (typ == "" || ev.Type == typ) && (about == nil || (ev.submissionID != nil && *ev.submissionID == *about)) {
			matching = append(matching, ev.Event)
		}
	}
	page, err := paginate(c, matching)
	return http.StatusOK, page, err
}

// listEventFeed reads the log forward from a position, waiting up to wait seconds for
// an event when there is none yet. It takes s.mu itself, and lets go of it while it
// waits. Positions are indexes in the log, which only grows, so nothing is skipped or
// repeated.
func (s *Server) listEventFeed(c *call) (int, any, error) {
	q := c.r.URL.Query()
	limit, err := limitParam(c)
	if err != nil {
		return 0, nil, err
	}
	var types []client.EventType
	for _, v := range q["type"] {
		for one := range strings.SplitSeq(v, ",") {
			typ, err := eventTypeParam("type", one)
			if err != nil {
				return 0, nil, err
			}
			types = append(types, typ)
		}
	}
	if len(types) > 20 {
		return 0, nil, invalidField("type", "at most 20 types")
	}
	wait := 0
	if v := q.Get("wait"); v != "" {
		if wait, err = strconv.Atoi(v); err != nil || wait < 0 || wait > 30 {
			return 0, nil, invalidField("wait", "wait must be 0 to 30 seconds")
		}
	}
	fromStart := false
	if v := q.Get("from_start"); v != "" {
		if fromStart, err = strconv.ParseBool(v); err != nil {
			return 0, nil, invalidField("from_start", "from_start must be true or false")
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	pos := len(s.events)
	switch {
	case q.Has("cursor") && q.Has("after") && q.Get("cursor") != q.Get("after"):
		return 0, nil, invalidField("cursor", "cursor and after (its former name) differ")
	case q.Has("cursor") || q.Has("after"):
		param := "cursor"
		if !q.Has("cursor") {
			param = "after"
		}
		if pos, err = decodePosition(q.Get(param)); err != nil || pos > len(s.events) {
			return 0, nil, invalidField(param, "the cursor does not decode")
		}
	case fromStart:
		pos = 0
	default:
		return http.StatusOK, client.EventFeed{Data: []client.Event{}, NextCursor: encodePosition(pos)}, nil
	}
	deadline := time.Now().Add(time.Duration(wait) * time.Second)
	for {
		feed := client.EventFeed{Data: []client.Event{}}
		next := pos
		for next < len(s.events) && len(feed.Data) < limit {
			if ev := s.events[next]; len(types) == 0 || slices.Contains(types, ev.Type) {
				feed.Data = append(feed.Data, ev.Event)
			}
			next++
		}
		feed.NextCursor = encodePosition(next)
		left := time.Until(deadline)
		if len(feed.Data) > 0 || left <= 0 {
			return http.StatusOK, feed, nil
		}
		pos = next
		added := s.eventAdded
		s.mu.Unlock()
		timer := time.NewTimer(left)
		select {
		case <-added:
		case <-timer.C:
		case <-c.r.Context().Done():
		case <-s.stop.Done():
		}
		timer.Stop()
		s.mu.Lock()
		if c.r.Context().Err() != nil || s.stop.Err() != nil {
			return http.StatusOK, client.EventFeed{Data: []client.Event{}, NextCursor: encodePosition(pos)}, nil
		}
	}
}

func (s *Server) findEvent(c *call) (*event, error) {
	for _, ev := range s.events {
		if ev.Id == c.params["event_id"] {
			return ev, nil
		}
	}
	return nil, notFound("event")
}

func (s *Server) getEvent(c *call) (int, any, error) {
	ev, err := s.findEvent(c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, ev.detail(), nil
}

func (ev *event) detail() client.EventDetail {
	d := client.EventDetail{
		Id: ev.Id, Type: ev.Type, CreatedAt: ev.CreatedAt, ApiClientId: ev.ApiClientId, Data: ev.Data, Triggered: ev.Triggered,
		Deliveries: []client.Delivery{},
	}
	for _, dl := range ev.deliveries {
		copied := *dl
		copied.Attempts = slices.Clone(dl.Attempts)
		d.Deliveries = append(d.Deliveries, copied)
	}
	return d
}

// redeliverEvent requeues the deliveries that did not succeed, or with endpoint_id that
// endpoint's delivery whatever its state.
func (s *Server) redeliverEvent(c *call) (int, any, error) {
	ev, err := s.findEvent(c)
	if err != nil {
		return 0, nil, err
	}
	var req client.RedeliverEventRequest
	if err := c.decode(&req, true); err != nil {
		return 0, nil, err
	}
	requeued := 0
	for _, dl := range ev.deliveries {
		if req.EndpointId != nil && dl.EndpointId != *req.EndpointId ||
			req.EndpointId == nil && dl.DeliveryStatus == client.DeliveryStatusSucceeded {
			continue
		}
		if ep := s.findEndpointByID(dl.EndpointId); ep != nil {
			dl.DeliveryStatus = client.DeliveryStatusPending
			s.queue = append(s.queue, delivery{event: ev, endpoint: ep, record: dl})
			requeued++
		}
	}
	if requeued == 0 {
		param := ""
		if req.EndpointId != nil {
			param = "endpoint_id"
		}
		return 0, nil, &apiError{status: http.StatusUnprocessableEntity, code: "invalid_field", message: "no delivery of this event matches", param: param}
	}
	s.changed.Broadcast()
	return http.StatusOK, ev.detail(), nil
}
