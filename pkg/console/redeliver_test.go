package console_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
)

// webhookFixture is a client's webhook endpoint on a local server answering status,
// and the dispatcher that sends to it.
type webhookFixture struct {
	endpoint uuid.UUID
	status   *atomic.Int32
	d        *dispatch.Dispatcher
}

// webhook registers an endpoint of client's (every event type) on a local server that
// answers 500 until told otherwise.
func (b *testBundle) webhook(client uuid.UUID) *webhookFixture {
	b.t.Helper()
	ctx := context.Background()
	key, _ := secretbox.ParseKey(secretbox.NewKey())
	box, _ := secretbox.New(key)
	status := &atomic.Int32{}
	status.Store(http.StatusInternalServerError)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(status.Load())) }))
	b.t.Cleanup(srv.Close)
	ep, err := b.st.Tenant(client).CreateWebhookEndpoint(ctx, srv.URL+"/hook", "", nil, func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_test"), id[:]) })
	if err != nil {
		b.t.Fatal(err)
	}
	// No retry schedule: a failed attempt abandons the delivery at once.
	d := &dispatch.Dispatcher{Store: b.st, Secrets: box, Log: slog.New(slog.DiscardHandler), Timeout: 5 * time.Second, AllowPrivate: true}
	return &webhookFixture{endpoint: ep.ID, status: status, d: d}
}

// send runs the dispatcher once.
func (w *webhookFixture) send(t testing.TB) {
	t.Helper()
	if _, err := w.d.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// event emits an event of client's and fans it out to its endpoints.
func (b *testBundle) event(client uuid.UUID) uuid.UUID {
	b.t.Helper()
	ctx := context.Background()
	var id uuid.UUID
	err := b.st.InTx(ctx, func(tx *store.Tx) error {
		env, err := tx.Emit(ctx, events.Draft{APIClientID: client, Type: events.FileReady, Data: map[string]string{"file_id": "f1"}})
		if err == nil {
			id, err = events.ParseID(env.ID)
		}
		return err
	})
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.st.FanOut(ctx, id); err != nil {
		b.t.Fatal(err)
	}
	return id
}

func (b *testBundle) deliveryStatus(event uuid.UUID) string {
	b.t.Helper()
	ds, err := b.st.EventDeliveries(context.Background(), event)
	if err != nil || len(ds) != 1 {
		b.t.Fatalf("deliveries of %s: %v %+v", event, err, ds)
	}
	return ds[0].Status
}

// An admin redelivers an abandoned event from its page, through the store call the
// API's redeliverEvent makes: the delivery is pending again and goes out, the attempt
// history is kept, and the audit log names the admin. With nothing failed the button
// is gone and a post answers 422 as redeliverEvent does; an endpoint's delivery is
// requeued whatever its state, an endpoint without one is 422. Advisors, posts without
// the form's token and another client's address are refused.
func TestRedeliverFromEventPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.client("Bank")
	other := b.client("Other")
	hook := b.webhook(c.ID)
	ev := b.event(c.ID)
	hook.send(t)
	if s := b.deliveryStatus(ev); s != "abandoned" {
		t.Fatalf("delivery %s, want abandoned", s)
	}

	admin := b.browser()
	admin.signIn("admin@example.com", b.operator("admin@example.com", store.RoleAdmin, nil))
	pagePath := "/clients/" + c.ID.String() + "/events/" + ev.String()
	action := pagePath + "/redeliver"
	p := admin.get(pagePath)
	if p.status != http.StatusOK || !strings.Contains(p.body, `id="redeliver"`) || !strings.Contains(p.body, `action="`+action+`"`) {
		t.Fatalf("event page: %d, no Redeliver button: %.2000s", p.status, p.body)
	}
	csrf := admin.csrf(pagePath)

	if p := admin.post(action, url.Values{"csrf": {"forged"}}, ""); p.status != http.StatusForbidden {
		t.Errorf("without the form's token: %d", p.status)
	}
	advisor := b.browser()
	advisor.signIn("advisor@example.com", b.operator("advisor@example.com", store.RoleAdvisor, nil))
	if p := advisor.post(action, nil, advisor.csrf("/queue")); p.status != http.StatusForbidden {
		t.Errorf("an advisor: %d", p.status)
	}
	if p := admin.post("/clients/"+other.ID.String()+"/events/"+ev.String()+"/redeliver", nil, csrf); p.status != http.StatusNotFound {
		t.Errorf("under another client: %d", p.status)
	}
	if p := admin.post(action, url.Values{"endpoint_id": {"not-a-uuid"}}, csrf); p.status != http.StatusBadRequest {
		t.Errorf("a malformed endpoint: %d", p.status)
	}
	if s := b.deliveryStatus(ev); s != "abandoned" {
		t.Fatalf("a refused post changed the delivery: %s", s)
	}

	p = admin.post(action, nil, csrf)
	if p.status != http.StatusSeeOther || p.location != pagePath+"?done=redelivered" {
		t.Fatalf("redeliver: %d %s %.500s", p.status, p.location, p.body)
	}
	if s := b.deliveryStatus(ev); s != "pending" {
		t.Fatalf("after redeliver: %s, want pending", s)
	}
	if p := admin.get(p.location); !strings.Contains(p.body, "Redelivery queued") {
		t.Errorf("no notice after redelivering: %.2000s", p.body)
	}
	action2 := "event.redeliver"
	entries, err := b.st.AuditLog(context.Background(), store.AuditFilter{Action: &action2, Limit: 10})
	if err != nil || len(entries) != 1 || entries[0].Actor != "admin@example.com" || entries[0].TargetID != ev.String() {
		t.Fatalf("audit: %v %+v", err, entries)
	}
	var details struct {
		Deliveries int        `json:"deliveries"`
		EndpointID *uuid.UUID `json:"endpoint_id"`
	}
	if err := json.Unmarshal(entries[0].Details, &details); err != nil || details.Deliveries != 1 || details.EndpointID != nil {
		t.Errorf("audit details %s: %v", entries[0].Details, err)
	}

	hook.status.Store(http.StatusOK)
	hook.send(t)
	ds, err := b.st.EventDeliveries(context.Background(), ev)
	if err != nil || ds[0].Status != "succeeded" || len(ds[0].Attempts) != 2 {
		t.Fatalf("after sending again: %v %+v", err, ds)
	}
	p = admin.get(pagePath)
	if strings.Contains(p.body, `id="redeliver"`) {
		t.Errorf("the Redeliver button shows with nothing failed")
	}
	if p := admin.post(action, nil, csrf); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "No failed or abandoned delivery") {
		t.Errorf("nothing to redeliver: %d %.1000s", p.status, p.body)
	}
	if p := admin.post(action, url.Values{"endpoint_id": {uuid.NewString()}}, csrf); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, "no delivery to this endpoint") {
		t.Errorf("an endpoint without a delivery: %d %.1000s", p.status, p.body)
	}
	if p := admin.post(action, url.Values{"endpoint_id": {hook.endpoint.String()}}, csrf); p.status != http.StatusSeeOther {
		t.Errorf("a succeeded delivery by its endpoint: %d", p.status)
	}
	if s := b.deliveryStatus(ev); s != "pending" {
		t.Errorf("the endpoint's delivery: %s, want pending", s)
	}
}
