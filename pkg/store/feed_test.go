package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// The feed orders by transaction id as a number: across a power of ten (999 → 1000,
// where the ids' text order differs) paging reads every event once, in order.
func TestFeedOrdersTransactionsNumerically(t *testing.T) {
	t.Parallel()
	st := store.New(dbtest.New(t))
	ctx := context.Background()
	c, _, _, err := st.CreateClient(ctx, "c", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	// Transaction ids below the feed's horizon (all ended) that cross a power of ten.
	var horizon int64
	if err := st.Pool().QueryRow(ctx, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint").Scan(&horizon); err != nil {
		t.Fatal(err)
	}
	p := 10
	for int64(p*10) < horizon-2 {
		p *= 10
	}
	if int64(p+1) >= horizon {
		t.Fatalf("horizon %d too low for the test", horizon)
	}
	var want []uuid.UUID
	for _, tx := range []int{p - 2, p - 1, p, p + 1} {
		id := uuid.New()
		want = append(want, id)
		env := fmt.Sprintf(`{"id":"evt_%s","type":"file.ready","created_at":"2026-11-24T00:00:00Z","api_client_id":"%s","data":{}}`, id, c.ID)
		if _, err := st.Pool().Exec(ctx, `INSERT INTO events (id, api_client_id, type, envelope, created_at, tx) VALUES ($1, $2, 'file.ready', $3, now(), $4::text::xid8)`,
			id, c.ID, env, fmt.Sprint(tx)); err != nil {
			t.Fatal(err)
		}
	}
	tenant := st.Tenant(c.ID)
	pos, err := tenant.FeedStart(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var got []uuid.UUID
	for range 10 {
		rows, next, err := tenant.Feed(ctx, pos, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			got = append(got, r.ID)
		}
		if len(rows) == 0 {
			break
		}
		pos = next
		pos.At = time.Now()
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
}
