package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// Retention deletes a backlog of more than one batch, keeps the events inside the
// period, and never waits for an event another transaction holds: it skips it, so a
// long-running write on one old event cannot stall it (the next run takes that one).
func TestDeleteEventsBeforeInBatches(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	st := store.New(pool)
	c, _, _, err := st.CreateClient(ctx, "retention", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := 2*store.RetentionBatch + 10
	if _, err := pool.Exec(ctx, `INSERT INTO events (id, api_client_id, type, envelope, created_at)
		SELECT gen_random_uuid(), $1, 'file.ready', '{}', $2::timestamptz - n * interval '1 second'
		FROM generate_series(1, $3::int + 5) n`, c.ID, now, old); err != nil {
		t.Fatal(err)
	}
	// The 5 newest stay: the cut is between them and the rest.
	cut := now.Add(-5*time.Second - 500*time.Millisecond)

	held, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(ctx) //nolint:errcheck
	if _, err := held.Exec(ctx, "SELECT 1 FROM events WHERE created_at < $1 ORDER BY created_at DESC LIMIT 1 FOR UPDATE", cut); err != nil {
		t.Fatal(err)
	}

	runCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := st.DeleteEventsBefore(runCtx, cut)
	if err != nil {
		t.Fatalf("retention with an event held: %v", err)
	}
	if n != int64(old-1) {
		t.Fatalf("deleted %d, want %d (all old events but the held one)", n, old-1)
	}
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err = st.DeleteEventsBefore(ctx, cut); err != nil || n != 1 {
		t.Fatalf("the next run: %d, %v; want the held event", n, err)
	}
	var left int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM events WHERE api_client_id = $1", c.ID).Scan(&left); err != nil || left != 5 {
		t.Fatalf("%d events left (%v), want the 5 inside the period", left, err)
	}
}
