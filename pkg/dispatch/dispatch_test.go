package dispatch_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// Events older than the retention disappear; younger ones stay readable.
func TestRetention(t *testing.T) {
	ctx := context.Background()
	fake := clock.NewFake(time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC))
	st := store.New(dbtest.New(t), store.WithClock(fake))
	c, _, _, err := st.CreateClient(ctx, "r", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	emit := func() string {
		var id string
		if err := st.InTx(ctx, func(tx *store.Tx) error {
			env, err := tx.Emit(ctx, events.Draft{APIClientID: c.ID, Type: events.FileReady, Data: map[string]int{}})
			id = env.ID
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	old := emit()
	fake.Advance(20 * 24 * time.Hour)
	young := emit()
	fake.Advance(11 * 24 * time.Hour) // old is 31 days old, young 11

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- dispatch.Retention(runCtx, st, fake, dispatch.Config{EventRetention: 30 * 24 * time.Hour, RetentionEvery: time.Hour}, slog.New(slog.DiscardHandler))
	}()
	read := func(id string) error {
		uid, _ := events.ParseID(id)
		_, err := st.Tenant(c.ID).Event(ctx, uid)
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for read(old) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the expired event is still readable")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := read(young); err != nil {
		t.Errorf("the young event: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
