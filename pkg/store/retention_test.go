package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// Retention, as the dispatcher's role runs it, deletes a backlog of more than one batch
// and keeps the events inside the period; each batch commits on its own, so while one
// waits for a row another transaction holds, the batches before it are already gone
// (and their locks released), where one DELETE of the whole backlog would hold them all.
func TestDeleteEventsBeforeInBatches(t *testing.T) {
	ctx := context.Background()
	owner, url := dbtest.NewWithURL(t)
	st := store.New(owner)
	dispatcher, err := pgxpool.New(ctx, dbtest.RoleURL(t, url, "dispatcher"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dispatcher.Close)
	c, _, _, err := st.CreateClient(ctx, "retention", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := 2*store.RetentionBatch + 10
	if _, err := owner.Exec(ctx, `INSERT INTO events (id, api_client_id, type, envelope, created_at)
		SELECT gen_random_uuid(), $1, 'file.ready', '{}', $2::timestamptz - n * interval '1 second'
		FROM generate_series(1, $3::int + 5) n`, c.ID, now, old); err != nil {
		t.Fatal(err)
	}
	// The 5 newest stay: the cut is between them and the rest.
	cut := now.Add(-5*time.Second - 500*time.Millisecond)
	oldLeft := func() int {
		var n int
		if err := owner.QueryRow(ctx, "SELECT count(*) FROM events WHERE created_at < $1", cut).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Another transaction holds the newest old event: the last batch waits for it.
	held, err := owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(ctx) //nolint:errcheck
	if _, err := held.Exec(ctx, "SELECT 1 FROM events WHERE created_at < $1 ORDER BY created_at DESC LIMIT 1 FOR UPDATE", cut); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		n   int64
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		n, err := store.New(dispatcher).DeleteEventsBefore(ctx, cut)
		done <- outcome{n, err}
	}()
	for deadline := time.Now().Add(20 * time.Second); oldLeft() > old-2*store.RetentionBatch; {
		select {
		case o := <-done:
			t.Fatalf("retention ended (%d, %v) while an event it must delete was held", o.n, o.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d old events left while the last batch waits: the batches before it did not commit", oldLeft())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || o.n != int64(old) {
		t.Fatalf("retention: %d, %v; want %d deleted", o.n, o.err, old)
	}
	var left int
	if err := owner.QueryRow(ctx, "SELECT count(*) FROM events WHERE api_client_id = $1", c.ID).Scan(&left); err != nil || left != 5 {
		t.Fatalf("%d events left (%v), want the 5 inside the period", left, err)
	}
}
