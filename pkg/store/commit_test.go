package store_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// faultyStore is a store whose connections go through the returned Faults, with a
// probe table.
func faultyStore(t *testing.T) (*store.Store, *pgxpool.Pool, *dbtest.Faults) {
	t.Helper()
	_, url := dbtest.NewWithURL(t)
	pool, f := dbtest.FaultyPool(t, url)
	if _, err := pool.Exec(context.Background(), "CREATE TABLE probe (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return store.New(pool), pool, f
}

func probeExists(t *testing.T, pool *pgxpool.Pool, id int) bool {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM probe WHERE id = $1", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// A COMMIT whose answer is lost is looked up: the caller learns what happened instead
// of an error that may or may not mean the writes are gone.
func TestInTxResolvesAnUnansweredCommit(t *testing.T) {
	ctx := context.Background()
	st, pool, f := faultyStore(t)
	insert := func(id int) error {
		return st.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, "INSERT INTO probe VALUES ($1)", id) })
	}

	f.LoseAnswer(false, "INSERT INTO probe", "commit")
	if err := insert(1); err != nil || !f.Fired() {
		t.Fatalf("commit reached the server, answer lost: %v; want success", err)
	}
	if !probeExists(t, pool, 1) {
		t.Fatal("row 1 missing")
	}

	f.DropWrite(false, "INSERT INTO probe", "commit")
	err := insert(2)
	if err == nil || store.CommitUncertain(err) {
		t.Fatalf("commit never sent: %v; want a plain error", err)
	}
	if probeExists(t, pool, 2) {
		t.Fatal("row 2 written by a transaction reported failed")
	}

	// The database cannot be asked: the error says the writes may be there, and they are.
	f.LoseAnswer(true, "INSERT INTO probe", "commit")
	err = insert(3)
	if !store.CommitUncertain(err) || !store.Unavailable(err) {
		t.Fatalf("lookup impossible: %v; want CommitUncertain and Unavailable", err)
	}
	f.SetDown(false)
	if !probeExists(t, pool, 3) {
		t.Fatal("row 3 missing although its COMMIT reached the server")
	}

	// A transaction that wrote nothing has nothing to look up.
	f.DropWrite(false, "SELECT 1", "commit")
	err = st.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, "SELECT 1") })
	if err == nil || store.CommitUncertain(err) {
		t.Fatalf("read-only commit lost: %v; want a plain error", err)
	}
}

// A new connection is bounded: 10 s unless DATABASE_URL's connect_timeout says otherwise.
func TestConnectBoundsNewConnections(t *testing.T) {
	ctx := context.Background()
	_, url := dbtest.NewWithURL(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for u, want := range map[string]time.Duration{url: store.DefaultConnectTimeout, url + sep + "connect_timeout=3": 3 * time.Second} {
		pool, err := store.Connect(ctx, u, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		if got := pool.Config().ConnConfig.ConnectTimeout; got != want {
			t.Errorf("%s: connect timeout %s, want %s", u, got, want)
		}
		pool.Close()
	}
}
