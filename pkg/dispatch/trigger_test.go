package dispatch_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/events/samples"
	sdkwebhook "github.com/doceval/doceval/pkg/sdk/webhook"
)

// Triggered events (triggerEvent) of every type are delivered, signed, like real ones:
// to the endpoints subscribed to the type, or to the one endpoint named whatever its
// filter; the receiver verifies each with pkg/sdk/webhook and sees it marked triggered.
func TestTriggeredEventsDelivered(t *testing.T) {
	f := newFixture(t, time.Minute)
	var (
		mu     sync.Mutex
		byPath = map[string][]string{} // path → types received, verified
		bad    []string
	)
	secrets := map[string]string{"/all": "whsec_all", "/completed": "whsec_completed"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		mu.Lock()
		defer mu.Unlock()
		err := sdkwebhook.Verify(req.Header.Get(sdkwebhook.SignatureHeader), body, []string{secrets[req.URL.Path]}, 0, time.Now())
		ev, perr := sdkwebhook.ParseEvent(body)
		if err != nil || perr != nil || !ev.Triggered {
			bad = append(bad, req.URL.Path+": "+string(body))
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		byPath[req.URL.Path] = append(byPath[req.URL.Path], string(ev.Type))
	}))
	defer srv.Close()
	f.endpoint(srv.URL+"/all", secrets["/all"], nil)
	completed := f.endpoint(srv.URL+"/completed", secrets["/completed"], []string{string(events.EvaluationCompleted)})

	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	var wantAll []string
	for _, v := range doc.Components.Schemas["EventType"].Value.Enum {
		typ := events.Type(v.(string))
		data, _, err := samples.Data(typ)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := f.tenant.TriggerEvent(f.ctx, typ, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.d.Store.FanOut(f.ctx, ev.ID); err != nil {
			t.Fatal(err)
		}
		if typ != events.WebhookEndpointTest { // no endpoint subscribes to it
			wantAll = append(wantAll, string(typ))
		}
	}
	data, _, err := samples.Data(events.FileFailed)
	if err != nil {
		t.Fatal(err)
	}
	targeted, err := f.tenant.TriggerEvent(f.ctx, events.FileFailed, data, &completed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.d.Store.FanOut(f.ctx, targeted.ID); err != nil {
		t.Fatal(err)
	}
	for f.run() > 0 {
	}

	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("%d deliveries failed verification or were not marked triggered, e.g. %s", len(bad), bad[0])
	}
	for path, want := range map[string][]string{"/all": wantAll, "/completed": {string(events.EvaluationCompleted), string(events.FileFailed)}} {
		got := slices.Sorted(slices.Values(byPath[path]))
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s received %v, want %v", path, got, want)
		}
	}
}
