package apiserver_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/events/samples"
)

// specEventTypes is every value of the spec's EventType.
func specEventTypes(t *testing.T) []client.EventType {
	t.Helper()
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	var out []client.EventType
	for _, v := range doc.Components.Schemas["EventType"].Value.Enum {
		out = append(out, client.EventType(v.(string)))
	}
	return out
}

// triggerEvent is the spec's EventDetail of a 202 answer of triggerEvent.
func triggerEvent(t *testing.T, c *client.ClientWithResponses, key *string, req client.TriggerEventRequest) *client.TriggerEventResponse {
	t.Helper()
	res, err := c.TriggerEventWithResponse(context.Background(), &client.TriggerEventParams{IdempotencyKey: key}, req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// endpointsOf is the endpoint ids of an event's deliveries, sorted.
func endpointsOf(d []client.Delivery) []string {
	var out []string
	for _, x := range d {
		out = append(out, x.EndpointId.String())
	}
	slices.Sort(out)
	return out
}

// triggerEvent emits, for every event type, a new event marked triggered whose data is
// the spec's example, to the caller's endpoints subscribed to the type (as the fan-out
// routes a real event, and webhook_endpoint.test to none) and into the event log and
// feed.
func TestTriggerEveryEventType(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	clientID, key := e.newClient()
	c := e.client(key)
	newEndpoint := func(url string, types ...client.EventType) string {
		req := client.CreateWebhookEndpointRequest{Url: url}
		if len(types) > 0 {
			req.Events = &types
		}
		res, err := c.CreateWebhookEndpointWithResponse(ctx, nil, req)
		expect(t, err, res.StatusCode(), res.Body, 201)
		return res.JSON201.Id.String()
	}
	all := newEndpoint("https://example.com/all")
	completed := newEndpoint("https://example.com/completed", client.EventTypeEvaluationCompleted)
	files := newEndpoint("https://example.com/files", client.EventTypeFileReady, client.EventTypeFileFailed)

	feedStart, err := c.ListEventFeedWithResponse(ctx, &client.ListEventFeedParams{})
	expect(t, err, feedStart.StatusCode(), feedStart.Body, 200)
	var triggered []string
	for _, typ := range specEventTypes(t) {
		before := time.Now()
		res := triggerEvent(t, c, nil, client.TriggerEventRequest{Type: typ})
		expect(t, nil, res.StatusCode(), res.Body, 202)
		ev := res.JSON202
		if ev.Type != typ || ev.ApiClientId != clientID || ev.Triggered == nil || !*ev.Triggered {
			t.Errorf("%s: answered %s", typ, res.Body)
		}
		if ev.CreatedAt.Before(before.Add(-time.Second)) || ev.CreatedAt.After(time.Now().Add(time.Second)) {
			t.Errorf("%s: created_at %s is not now", typ, ev.CreatedAt)
		}
		if len(ev.Deliveries) != 0 {
			t.Errorf("%s: %d deliveries before the fan-out", typ, len(ev.Deliveries))
		}
		want, ok, err := samples.Data(events.Type(typ))
		if err != nil || !ok {
			t.Fatalf("%s: no sample: %v", typ, err)
		}
		var wantData map[string]any
		if err := json.Unmarshal(want, &wantData); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ev.Data, wantData) {
			t.Errorf("%s: data %v, want the spec's example %v", typ, ev.Data, wantData)
		}

		// Routed as a real event of its type is (the dispatcher's fan-out).
		evID, err := events.ParseID(ev.Id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.FanOut(ctx, evID); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetEventWithResponse(ctx, ev.Id)
		expect(t, err, got.StatusCode(), got.Body, 200)
		var wantEndpoints []string
		switch typ {
		case client.EventTypeWebhookEndpointTest: // no endpoint subscribes to it
		case client.EventTypeEvaluationCompleted:
			wantEndpoints = []string{all, completed}
		case client.EventTypeFileReady, client.EventTypeFileFailed:
			wantEndpoints = []string{all, files}
		default:
			wantEndpoints = []string{all}
		}
		slices.Sort(wantEndpoints)
		if got := endpointsOf(got.JSON200.Deliveries); !slices.Equal(got, wantEndpoints) {
			t.Errorf("%s delivered to %v, want %v", typ, got, wantEndpoints)
		}
		triggered = append(triggered, ev.Id)
	}

	// Every one is in the feed listen follows, in order, and listed marked triggered.
	if inFeed, _ := feedUntil(t, c, client.ListEventFeedParams{After: &feedStart.JSON200.NextCursor}, len(triggered)); !slices.Equal(inFeed, triggered) {
		t.Errorf("feed holds %v, want %v", inFeed, triggered)
	}
	list, err := c.ListEventsWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	for _, ev := range list.JSON200.Data {
		if ev.Triggered == nil || !*ev.Triggered {
			t.Errorf("list: %s not marked triggered", ev.Id)
		}
	}

	// A real event carries no mark: its envelope is as before.
	real := e.emit(clientID, 1, events.FileReady)[0]
	got, err := c.GetEventWithResponse(ctx, real)
	expect(t, err, got.StatusCode(), got.Body, 200)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(got.Body, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["triggered"]; ok {
		t.Errorf("a real event is marked: %s", got.Body)
	}
}

// With endpoint_id the event goes to that endpoint only, whatever its events filter:
// its delivery is queued in the answer and the fan-out adds none.
func TestTriggerEventToOneEndpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	only := []client.EventType{client.EventTypeEvaluationCompleted}
	one, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://example.com/one", Events: &only})
	expect(t, err, one.StatusCode(), one.Body, 201)
	other, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://example.com/other"})
	expect(t, err, other.StatusCode(), other.Body, 201)

	for _, typ := range []client.EventType{client.EventTypeFileFailed, client.EventTypeWebhookEndpointTest} {
		res := triggerEvent(t, c, nil, client.TriggerEventRequest{Type: typ, EndpointId: &one.JSON201.Id})
		expect(t, nil, res.StatusCode(), res.Body, 202)
		if got := endpointsOf(res.JSON202.Deliveries); !slices.Equal(got, []string{one.JSON201.Id.String()}) ||
			res.JSON202.Deliveries[0].DeliveryStatus != client.DeliveryStatusPending {
			t.Fatalf("%s to one endpoint: %s", typ, res.Body)
		}
		evID, err := events.ParseID(res.JSON202.Id)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := e.store.FanOut(ctx, evID); err != nil || n != 0 {
			t.Fatalf("%s: the fan-out made %d deliveries (%v), want none", typ, n, err)
		}
		got, err := c.GetEventWithResponse(ctx, res.JSON202.Id)
		expect(t, err, got.StatusCode(), got.Body, 200)
		if got := endpointsOf(got.JSON200.Deliveries); !slices.Equal(got, []string{one.JSON201.Id.String()}) {
			t.Errorf("%s delivered to %v", typ, got)
		}
	}
}

// Refusals: an unknown type, an endpoint that is unknown, another client's, deleted or
// disabled, a missing type and a missing permission, each in the error envelope.
func TestTriggerEventRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	wantField := func(res *client.TriggerEventResponse, param string) {
		t.Helper()
		d := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidField)
		if d.Param == nil || *d.Param != param {
			t.Errorf("param %v, want %s: %s", d.Param, param, res.Body)
		}
	}
	wantField(triggerEvent(t, c, nil, client.TriggerEventRequest{Type: "invoice.paid"}), "type")
	wantField(triggerEvent(t, c, nil, client.TriggerEventRequest{}), "type")
	unknown := uuid.New()
	wantField(triggerEvent(t, c, nil, client.TriggerEventRequest{Type: client.EventTypeFileReady, EndpointId: &unknown}), "endpoint_id")

	_, otherKey := e.newClient()
	theirs, err := e.client(otherKey).CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://example.com/theirs"})
	expect(t, err, theirs.StatusCode(), theirs.Body, 201)
	wantField(triggerEvent(t, c, nil, client.TriggerEventRequest{Type: client.EventTypeFileReady, EndpointId: &theirs.JSON201.Id}), "endpoint_id")

	mine, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://example.com/mine"})
	expect(t, err, mine.StatusCode(), mine.Body, 201)
	disabled := client.Disabled
	upd, err := c.UpdateWebhookEndpointWithResponse(ctx, mine.JSON201.Id, client.UpdateWebhookEndpointRequest{Status: &disabled})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	wantField(triggerEvent(t, c, nil, client.TriggerEventRequest{Type: client.EventTypeFileReady, EndpointId: &mine.JSON201.Id}), "endpoint_id")
	del, err := c.DeleteWebhookEndpointWithResponse(ctx, mine.JSON201.Id)
	expect(t, err, del.StatusCode(), del.Body, 204)
	wantField(triggerEvent(t, c, nil, client.TriggerEventRequest{Type: client.EventTypeFileReady, EndpointId: &mine.JSON201.Id}), "endpoint_id")

	// No event was written by any of these.
	list, err := c.ListEventsWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	if len(list.JSON200.Data) != 0 {
		t.Errorf("refused triggers wrote %d events", len(list.JSON200.Data))
	}

	// events:write is the permission; webhooks:write alone is not enough.
	_, webhooksOnly := e.newClient(auth.Permission("webhooks:write"), auth.Permission("events:read"))
	res := triggerEvent(t, e.client(webhooksOnly), nil, client.TriggerEventRequest{Type: client.EventTypeFileReady})
	wantError(t, res.HTTPResponse, res.Body, 403, client.ErrorCodePermissionDenied)
	_, eventsWrite := e.newClient(auth.Permission("events:write"))
	res = triggerEvent(t, e.client(eventsWrite), nil, client.TriggerEventRequest{Type: client.EventTypeFileReady})
	expect(t, nil, res.StatusCode(), res.Body, 202)
}

// The same Idempotency-Key and body replays the first event instead of emitting another.
func TestTriggerEventIdempotencyKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	k := "trigger-" + uuid.NewString()
	first := triggerEvent(t, c, &k, client.TriggerEventRequest{Type: client.EventTypeEvaluationFailed})
	expect(t, nil, first.StatusCode(), first.Body, 202)
	again := triggerEvent(t, c, &k, client.TriggerEventRequest{Type: client.EventTypeEvaluationFailed})
	expect(t, nil, again.StatusCode(), again.Body, 202)
	if again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" || again.JSON202.Id != first.JSON202.Id {
		t.Errorf("replay: %q, ids %s and %s", again.HTTPResponse.Header.Get("Idempotent-Replayed"), first.JSON202.Id, again.JSON202.Id)
	}
	list, err := c.ListEventsWithResponse(ctx, nil)
	expect(t, err, list.StatusCode(), list.Body, 200)
	if len(list.JSON200.Data) != 1 {
		t.Errorf("%d events after a replayed trigger, want 1", len(list.JSON200.Data))
	}
	other := triggerEvent(t, c, &k, client.TriggerEventRequest{Type: client.EventTypeEvaluationCanceled})
	wantError(t, other.HTTPResponse, other.Body, 422, client.ErrorCodeIdempotencyKeyReused)
}
