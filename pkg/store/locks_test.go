package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/document"
	"github.com/doceval/doceval/pkg/domain/evaluation"
	"github.com/doceval/doceval/pkg/domain/submission"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
)

// Two transactions that lock two rows in opposite orders deadlock; PostgreSQL aborts
// one of them (40P01), and InTx runs it again instead of handing the abort to the
// caller: both commit.
func TestInTxRetriesDeadlocks(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	st := store.New(pool)
	if _, err := pool.Exec(ctx, "CREATE TABLE lock_probe (id int PRIMARY KEY, n int NOT NULL DEFAULT 0); INSERT INTO lock_probe VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	var bothHoldFirst sync.WaitGroup
	bothHoldFirst.Add(2)
	run := func(first, second int) error {
		attempt := 0
		return st.InTx(ctx, func(tx *store.Tx) error {
			calls.Add(1)
			attempt++
			if err := tx.Exec(ctx, "UPDATE lock_probe SET n = n + 1 WHERE id = $1", first); err != nil {
				return err
			}
			if attempt == 1 {
				bothHoldFirst.Done()
				bothHoldFirst.Wait() // each now holds the row the other wants next
			}
			return tx.Exec(ctx, "UPDATE lock_probe SET n = n + 1 WHERE id = $1", second)
		})
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = run(1, 2) })
	wg.Go(func() { errs[1] = run(2, 1) })
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("transaction %d: %v", i, err)
		}
	}
	if n := calls.Load(); n < 3 {
		t.Errorf("%d runs of the transactions, want at least 3 (one deadlocked and ran again)", n)
	}
	var total int
	if err := pool.QueryRow(ctx, "SELECT sum(n) FROM lock_probe").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != 4 {
		t.Errorf("rows incremented %d times, want 4 (each transaction committed once)", total)
	}
}

// Retrying is bounded, and only serialization failures and deadlocks are retried.
func TestInTxRetryBound(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	for _, tc := range []struct {
		err  error
		runs int
	}{
		{&pgconn.PgError{Code: "40001"}, store.MaxTxAttempts},
		{&pgconn.PgError{Code: "40P01"}, store.MaxTxAttempts},
		{&pgconn.PgError{Code: "23514"}, 1},
		{errors.New("plain failure"), 1},
	} {
		runs := 0
		err := st.InTx(ctx, func(*store.Tx) error { runs++; return tc.err })
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: InTx returned %v", tc.err, err)
		}
		if runs != tc.runs {
			t.Errorf("%v: ran %d times, want %d", tc.err, runs, tc.runs)
		}
	}
}

// An evaluator's write takes the submission's lock before the evaluation's, the order
// cancel and delete take them in: while another transaction holds the submission, the
// evaluator's progress write waits without holding the evaluation.
func TestEvaluationWritesLockSubmissionFirst(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	st := store.New(pool)
	_, sub, ev := runningEvaluation(t, st)

	holder, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, "SELECT 1 FROM submissions WHERE id = $1 FOR UPDATE", sub); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- st.EvaluationProgress(ctx, ev, "reading", 10, 0) }()
	waitForLockWaiter(t, pool)

	probe, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := probe.Exec(ctx, "SELECT 1 FROM evaluations WHERE id = $1 FOR UPDATE NOWAIT", ev); err != nil {
		t.Errorf("the evaluation is locked while its submission's lock is awaited (lock order inverted): %v", err)
	}
	_ = probe.Rollback(ctx)
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("progress: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("progress write did not finish after the submission was released")
	}
}

// Canceling a submission while its evaluator writes progress never fails: without one
// lock order, PostgreSQL aborted one side with a deadlock and the cancel answered 500.
func TestCancelDuringProgressWrites(t *testing.T) {
	ctx := context.Background()
	st := store.New(dbtest.New(t))
	for i := range 10 {
		owner, sub, ev := runningEvaluation(t, st)
		var wg sync.WaitGroup
		var progressErr, cancelErr error
		wg.Go(func() {
			for p := range 20 {
				if err := st.EvaluationProgress(ctx, ev, "reading", p, 0); err != nil {
					if !errors.Is(err, evaluation.ErrOver) {
						progressErr = err
					}
					return
				}
			}
		})
		wg.Go(func() { _, cancelErr = st.Tenant(owner).CancelSubmission(ctx, sub) })
		wg.Wait()
		if progressErr != nil || cancelErr != nil {
			t.Fatalf("round %d: progress %v, cancel %v", i, progressErr, cancelErr)
		}
	}
}

// runningEvaluation makes a submission with one ready upload and a running evaluation.
func runningEvaluation(t *testing.T, st *store.Store) (client, submissionID, evaluationID uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	c, _, _, err := st.CreateClient(ctx, "locks-"+uuid.NewString()[:8], auth.AllPermissions)
	if err != nil {
		t.Fatal(err)
	}
	tenant := st.Tenant(c.ID)
	sub, _, err := tenant.CreateSubmission(ctx, submission.New{ExternalID: "s", Metadata: []byte("{}"), Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := tenant.CreateUpload(ctx, submission.NewUpload{
		SubmissionID: sub.ID, ExternalFileID: "f", FileID: uuid.New(), Filename: "f.pdf",
		ContentType: "application/pdf", Size: 1, SHA256: []byte{1}, BlobKey: "k/f",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishIngest(ctx, u.ID, []document.Page{{Number: 1, Text: "Kontoauszug", Chars: 11}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	ev, err := tenant.StartEvaluation(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.BeginEvaluation(ctx, ev.ID, 0); err != nil {
		t.Fatal(err)
	}
	return c.ID, sub.ID, ev.ID
}

// waitForLockWaiter returns once some session of the test database waits for a row lock.
func waitForLockWaiter(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := pool.QueryRow(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no session waits for the lock")
}
