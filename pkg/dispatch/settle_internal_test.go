package dispatch

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/secretbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// Outcomes settled together, one of which PostgreSQL refuses: the others are still
// recorded (each alone), and the refused one keeps its lease, to be sent again when it
// ends.
func TestSettleAllKeepsTheOthersWhenOneIsRefused(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	key, _ := secretbox.ParseKey(secretbox.NewKey())
	box, _ := secretbox.New(key)
	c, _, _, err := st.CreateClient(ctx, "settle", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Tenant(c.ID).CreateWebhookEndpoint(ctx, "https://a.example/hook", "", nil, func(id uuid.UUID) []byte { return box.Seal([]byte("whsec_x"), id[:]) }); err != nil {
		t.Fatal(err)
	}
	var evs []uuid.UUID
	for range 3 {
		if err := st.InTx(ctx, func(tx *store.Tx) error {
			env, err := tx.Emit(ctx, events.Draft{APIClientID: c.ID, Type: events.FileReady, Data: map[string]string{"k": "v"}})
			if err == nil {
				var id uuid.UUID
				if id, err = events.ParseID(env.ID); err == nil {
					evs = append(evs, id)
				}
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.FanOut(ctx, evs[len(evs)-1]); err != nil {
			t.Fatal(err)
		}
	}
	claimed, err := st.ClaimDeliveries(ctx, store.ClaimLimits{Max: 10, PerEndpoint: 10, PerClient: 10}, time.Minute)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("claimed %d: %v", len(claimed), err)
	}
	d := &Dispatcher{Store: st, Secrets: box, Log: slog.New(slog.DiscardHandler), Timeout: 5 * time.Second}
	now := st.Now()
	var settled []store.Settlement
	for i, del := range claimed {
		del.Status, del.AttemptCount, del.LastAttemptedAt = store.DeliverySucceeded, 1, &now
		if i == 1 {
			del.Status = "delivered" // not a status: the table's check refuses it
		}
		settled = append(settled, store.Settlement{Delivery: del, Attempt: store.Attempt{Number: 1, AttemptedAt: now, Outcome: OutcomeSucceeded}})
	}
	d.settleAll(ctx, settled)
	for i, s := range settled {
		ds, err := st.EventDeliveries(ctx, s.Delivery.EventID)
		if err != nil || len(ds) != 1 {
			t.Fatal(ds, err)
		}
		got := ds[0]
		if i == 1 {
			if got.Status != store.DeliveryPending || len(got.Attempts) != 0 {
				t.Errorf("the refused outcome was recorded: %+v", got)
			}
			continue
		}
		if got.Status != store.DeliverySucceeded || len(got.Attempts) != 1 {
			t.Errorf("an outcome settled beside a refused one was lost: %+v", got)
		}
	}
}
