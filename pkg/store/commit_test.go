package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/domain/submission"
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

	// Neither the transaction's id nor COMMIT's answer came back: nothing to look up by,
	// and the writes may be there. Whether they are is a race on the server (COMMIT was
	// sent, but the server may notice the closed connection first, while it answers the
	// id), so only the error is checked: it must not claim either outcome.
	f.LoseAnswer(false, "INSERT INTO probe", "pg_current_xact_id")
	err = insert(4)
	if !store.CommitUncertain(err) || !f.Fired() {
		t.Fatalf("no answer at all: %v; want CommitUncertain", err)
	}
}

// A transaction that wrote nothing has nothing to look up, whether COMMIT's answer or
// COMMIT itself was lost.
func TestInTxDoesNotLookUpATransactionThatWroteNothing(t *testing.T) {
	ctx := context.Background()
	st, _, f := faultyStore(t)
	read := func() error { return st.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, "SELECT 1") }) }

	f.LoseAnswer(false, "SELECT 1", "commit")
	if err := read(); err == nil || store.CommitUncertain(err) || !f.Fired() {
		t.Fatalf("read-only commit's answer lost: %v; want a plain error", err)
	}
	f.DropWrite(false, "SELECT 1", "commit")
	if err := read(); err == nil || store.CommitUncertain(err) || !f.Fired() {
		t.Fatalf("read-only commit never sent: %v; want a plain error", err)
	}
}

// Ending a transaction costs one round trip: the id that resolves a lost COMMIT
// travels with it, not before it.
func TestInTxCommitsInOneRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, pool, f := faultyStore(t)
	var beforeCommit int
	err := st.InTx(ctx, func(tx *store.Tx) error {
		err := tx.Exec(ctx, "INSERT INTO probe VALUES (1)")
		beforeCommit = f.RoundTrips()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.RoundTrips() - beforeCommit; got != 1 {
		t.Fatalf("ending the transaction took %d round trips, want 1", got)
	}
	if !probeExists(t, pool, 1) {
		t.Fatal("row 1 missing")
	}
}

// withParam adds a parameter to a connection URL.
func withParam(url, param string) string {
	if strings.Contains(url, "?") {
		return url + "&" + param
	}
	return url + "?" + param
}

// A new connection is bounded: 10 s unless DATABASE_URL's connect_timeout says otherwise.
func TestConnectBoundsNewConnections(t *testing.T) {
	ctx := context.Background()
	_, url := dbtest.NewWithURL(t)
	for u, want := range map[string]time.Duration{url: store.DefaultConnectTimeout, withParam(url, "connect_timeout=3"): 3 * time.Second} {
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

// A transaction the server refuses to commit reports the server's error, and its
// connection serves the next one: a transaction aborted inside fn (the id's query
// fails) is rolled back, one refused at COMMIT (a deferred constraint) rolled back by it.
func TestInTxReportsARefusedCommit(t *testing.T) {
	ctx := context.Background()
	st, pool, _ := faultyStore(t)
	if _, err := pool.Exec(ctx, "CREATE TABLE deferred (id int UNIQUE DEFERRABLE INITIALLY DEFERRED)"); err != nil {
		t.Fatal(err)
	}
	var pgErr *pgconn.PgError

	err := st.InTx(ctx, func(tx *store.Tx) error {
		_ = tx.Exec(ctx, "INSERT INTO probe VALUES (1)")
		_ = tx.Exec(ctx, "SELECT 1/0") // ignored: the transaction is aborted
		return nil
	})
	if !errors.As(err, &pgErr) || pgErr.Code != "25P02" {
		t.Fatalf("aborted transaction: %v; want 25P02", err)
	}

	err = st.InTx(ctx, func(tx *store.Tx) error {
		return tx.Exec(ctx, "INSERT INTO deferred VALUES (1), (1)")
	})
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || store.CommitUncertain(err) {
		t.Fatalf("refused commit: %v; want 23505", err)
	}

	if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, "INSERT INTO probe VALUES (2)") }); err != nil {
		t.Fatal(err)
	}
	if probeExists(t, pool, 1) || !probeExists(t, pool, 2) {
		t.Fatal("want row 2 only")
	}
}

// A submission is created in few round trips: the template is locked and read in one
// statement, its slots are inserted in one, the submission is answered from its
// INSERT, and a repeat is found by that INSERT, not looked up before it. The bound
// counts this pool's round trips, which send every statement's text (no cached
// prepared statements: two per statement); it was 38, then 16.
func TestCreateSubmissionRoundTrips(t *testing.T) {
	ctx := context.Background()
	st, _, f := faultyStore(t)
	c, _, _, err := st.CreateClient(ctx, "round trips", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	before := f.RoundTrips()
	sub, created, err := st.Tenant(c.ID).CreateSubmission(ctx, submission.New{ExternalID: "rt", Metadata: []byte(`{}`), Language: "en"})
	if err != nil || !created {
		t.Fatalf("create: %v (created %v)", err, created)
	}
	if got := f.RoundTrips() - before; got > 14 {
		t.Errorf("creating a submission took %d round trips, want at most 14", got)
	}
	d, err := st.Tenant(c.ID).Submission(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, sl := range d.Slots {
		if sl.Position != i || sl.Key == "" || sl.DocumentTypeID == "" || sl.Status != "missing" {
			t.Errorf("slot %d: %+v", i, sl)
		}
	}
	if len(d.Slots) != len(sub.Snapshot.DocumentRequirements) || len(d.Slots) == 0 {
		t.Fatalf("%d slots for %d requirements", len(d.Slots), len(sub.Snapshot.DocumentRequirements))
	}
}

// An Idempotency-Key costs its request no round trip of its own: the claim is sent
// with BEGIN and the kept answer with COMMIT. This pool sends every statement's text
// (two round trips per statement), and a batch is described before it runs, so the
// claim's batch costs one more than BEGIN alone; the claim and the kept answer sent
// on their own cost four more.
func TestIdempotentTxCostsNoRoundTrip(t *testing.T) {
	ctx := context.Background()
	_, url := dbtest.NewWithURL(t)
	pool, f := dbtest.FaultyPool(t, withParam(url, "pool_max_conns=1")) // one connection: its statements stay prepared
	if _, err := pool.Exec(ctx, "CREATE TABLE probe (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	c, _, _, err := st.CreateClient(ctx, "round trips", auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	insert := func(ctx context.Context, id int) error {
		return st.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, "INSERT INTO probe VALUES ($1)", id) })
	}
	keyed := func(id int) int {
		before := f.RoundTrips()
		outcome, _, err := st.IdempotentTx(ctx, c.ID, fmt.Sprint("key-", id), uuid.New(), func(ctx context.Context) (*store.KeptAnswer, bool) {
			if err := insert(ctx, id); err != nil {
				t.Error(err)
			}
			return &store.KeptAnswer{RequestHash: []byte{1}, Response: store.StoredResponse{Status: 201, ContentType: "application/json", SealedBody: []byte("sealed")}}, false
		})
		if err != nil || outcome != store.KeptInTx {
			t.Fatalf("IdempotentTx: %v (outcome %d)", err, outcome)
		}
		return f.RoundTrips() - before
	}
	keyed(1) // prepares the kept answer's statement on the connection
	before := f.RoundTrips()
	if err := insert(ctx, 2); err != nil {
		t.Fatal(err)
	}
	plain := f.RoundTrips() - before
	if got := keyed(3); got > plain+1 {
		t.Fatalf("the work with an Idempotency-Key took %d round trips, without %d; want at most one more", got, plain)
	}
}
