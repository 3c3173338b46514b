package apiserver_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/events"
)

// Redelivery requeues failed deliveries (or one endpoint's, whatever its state), keeps
// the attempt history, and says so when nothing matches.
func TestRedeliverEvent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id, key := e.newClient()
	_, otherKey := e.newClient()
	c := e.client(key)
	var status atomic.Int32
	status.Store(500)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(int(status.Load())) }))
	defer srv.Close()
	ep, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: srv.URL + "/hook"})
	expect(t, err, ep.StatusCode(), ep.Body, 201)
	spare, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: srv.URL + "/spare", Events: &[]client.EventType{"evaluation.failed"}})
	expect(t, err, spare.StatusCode(), spare.Body, 201)

	evID := e.emit(id, 1, events.FileReady)[0]
	uid, _ := events.ParseID(evID)
	if _, err := e.store.FanOut(ctx, uid); err != nil {
		t.Fatal(err)
	}
	d := &dispatch.Dispatcher{Store: e.store, Secrets: e.secrets, Log: slog.New(slog.DiscardHandler), Timeout: 5 * time.Second, AllowPrivate: true}
	if _, err := d.RunOnce(ctx); err != nil { // no retries scheduled: abandoned at once
		t.Fatal(err)
	}
	got, err := c.GetEventWithResponse(ctx, evID)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if ds := got.JSON200.Deliveries; len(ds) != 1 || ds[0].DeliveryStatus != "abandoned" || ds[0].EndpointId != ep.JSON201.Id ||
		ds[0].EndpointUrl != srv.URL+"/hook" || len(ds[0].Attempts) != 1 || *ds[0].Attempts[0].ResponseStatus != 500 {
		t.Fatalf("deliveries: %s", got.Body)
	}

	res, body := e.raw("POST", "/v1/events/"+evID+"/redeliver", key, "", nil) // no body at all
	if res.StatusCode != 200 || !strings.Contains(string(body), `"delivery_status":"pending"`) {
		t.Fatalf("redeliver: %d %s", res.StatusCode, body)
	}
	status.Store(200)
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetEventWithResponse(ctx, evID)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if dl := got.JSON200.Deliveries[0]; dl.DeliveryStatus != "succeeded" || dl.AttemptCount != 2 || len(dl.Attempts) != 2 || dl.Attempts[1].Outcome != "succeeded" {
		t.Fatalf("after redelivery: %+v", dl)
	}

	none, err := c.RedeliverEventWithResponse(ctx, evID, nil, client.RedeliverEventRequest{})
	expect(t, err, none.StatusCode(), none.Body, 422)
	wantError(t, none.HTTPResponse, none.Body, 422, client.ErrorCodeInvalidField)
	again, err := c.RedeliverEventWithResponse(ctx, evID, nil, client.RedeliverEventRequest{EndpointId: &ep.JSON201.Id})
	expect(t, err, again.StatusCode(), again.Body, 200) // a succeeded delivery, requested by endpoint
	noDelivery, err := c.RedeliverEventWithResponse(ctx, evID, nil, client.RedeliverEventRequest{EndpointId: &spare.JSON201.Id})
	expect(t, err, noDelivery.StatusCode(), noDelivery.Body, 422)
	if d := wantError(t, noDelivery.HTTPResponse, noDelivery.Body, 422, client.ErrorCodeInvalidField); deref(d.Param) != "endpoint_id" {
		t.Errorf("param %q", deref(d.Param))
	}
	unknown := uuid.New()
	res2, err := c.RedeliverEventWithResponse(ctx, evID, nil, client.RedeliverEventRequest{EndpointId: &unknown})
	expect(t, err, res2.StatusCode(), res2.Body, 422)
	other, err := e.client(otherKey).RedeliverEventWithResponse(ctx, evID, nil, client.RedeliverEventRequest{})
	expect(t, err, other.StatusCode(), other.Body, 404)
}
