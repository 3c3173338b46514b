package dispatch

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// A disabled API client's deliveries are held: a retry falling due and a new one are
// not claimed however overdue, nor failed or abandoned, and a delivery claimed just
// before the disable is given back untried when its turn comes. No attempt is made or
// counted. Enabling the client sends them all.
func TestDisabledClientDeliveriesHeld(t *testing.T) {
	ctx := context.Background()
	fake := clock.NewFake(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	st := store.New(dbtest.New(t), store.WithClock(fake))
	key, _ := secretbox.ParseKey(secretbox.NewKey())
	box, _ := secretbox.New(key)
	c, _, _, err := st.CreateClient(ctx, "held", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		posts.Add(1)
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	if _, err := st.Tenant(c.ID).CreateWebhookEndpoint(ctx, srv.URL, "", nil, func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_x"), id[:]) }); err != nil {
		t.Fatal(err)
	}
	emit := func() uuid.UUID {
		t.Helper()
		var id uuid.UUID
		err := st.InTx(ctx, func(tx *store.Tx) error {
			env, err := tx.Emit(ctx, events.Draft{APIClientID: c.ID, Type: events.FileReady, Data: map[string]string{"k": "v"}})
			if err == nil {
				id, err = events.ParseID(env.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.FanOut(ctx, id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	d := &Dispatcher{Store: st, Secrets: box, Log: slog.New(slog.DiscardHandler), Schedule: []time.Duration{time.Minute}, Timeout: 5 * time.Second, AllowPrivate: true}
	run := func() int {
		t.Helper()
		n, err := d.RunOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	only := func(ev uuid.UUID) store.Delivery {
		t.Helper()
		ds, err := st.EventDeliveries(ctx, ev)
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries of %s: %v %v", ev, ds, err)
		}
		return ds[0]
	}

	retrying := emit()
	if run() != 1 || only(retrying).Status != store.DeliveryFailedRetryable {
		t.Fatalf("first attempt: %+v", only(retrying))
	}
	inFlight := emit()
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimLimits{Max: 10, PerEndpoint: 4, PerClient: 10}, d.lease())
	if err != nil || len(claimed) != 1 || claimed[0].EventID != inFlight {
		t.Fatalf("claim: %+v %v", claimed, err)
	}
	if _, err := st.SetClientDisabled(ctx, c.ID, true); err != nil {
		t.Fatal(err)
	}
	fresh := emit()
	d.init()
	d.deliverAll(ctx, claimed) // claimed before the disable, its send comes after
	fake.Advance(48 * time.Hour)
	if n := run(); n != 0 {
		t.Fatalf("%d deliveries of a disabled client claimed", n)
	}
	if posts.Load() != 1 {
		t.Fatalf("%d requests reached the endpoint, want only the attempt before the disable", posts.Load())
	}
	for ev, attempts := range map[uuid.UUID]int{retrying: 1, inFlight: 0, fresh: 0} {
		if got := only(ev); got.AttemptCount != attempts || len(got.Attempts) != attempts ||
			(got.Status != store.DeliveryPending && got.Status != store.DeliveryFailedRetryable) {
			t.Errorf("held delivery of %s: %+v, want %d attempts and still to be sent", ev, got, attempts)
		}
	}

	status.Store(http.StatusOK)
	if _, err := st.SetClientDisabled(ctx, c.ID, false); err != nil {
		t.Fatal(err)
	}
	if n := run(); n != 3 {
		t.Fatalf("%d held deliveries sent after the enable, want 3", n)
	}
	for ev, attempts := range map[uuid.UUID]int{retrying: 2, inFlight: 1, fresh: 1} {
		if got := only(ev); got.Status != store.DeliverySucceeded || got.AttemptCount != attempts {
			t.Errorf("after the enable, delivery of %s: %+v, want succeeded at attempt %d", ev, got, attempts)
		}
	}
}
