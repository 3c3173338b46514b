// Package store is the seam between domain code and PostgreSQL. It owns the pool, the
// transactions, the mapping of sqlc rows to domain types and the one function that maps
// database errors (interpretError). Nothing outside this package imports gen/db.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/doceval/doceval/gen/db"
	"github.com/doceval/doceval/pkg/clock"
)

// ErrNotFound is returned when a row does not exist (or belongs to another client).
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a unique constraint refuses a write.
var ErrConflict = errors.New("conflict")

// Store reads and writes doceval's state.
type Store struct {
	pool  *pgxpool.Pool
	clock clock.Clock
	newID func() uuid.UUID
	// actor: staff actions are written to the audit log for them (As).
	actor *Actor
}

// Option configures a Store.
type Option func(*Store)

// WithClock injects the clock used for every timestamp the store writes.
func WithClock(c clock.Clock) Option { return func(s *Store) { s.clock = c } }

// WithIDs injects the id source.
func WithIDs(f func() uuid.UUID) Option { return func(s *Store) { s.newID = f } }

// New wraps a pool. Ids are UUIDv7 by default: time-ordered, so indexes stay compact.
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool, clock: clock.System{}, newID: newV7}
	for _, o := range opts {
		o(s)
	}
	return s
}

func newV7() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// Pool returns the underlying pool (for the outbox listener and health checks).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Now is the store's clock reading, truncated to PostgreSQL's microsecond precision so
// values read back compare equal.
func (s *Store) Now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

// NewID returns a fresh id from the injected source.
func (s *Store) NewID() uuid.UUID { return s.newID() }

// Ping checks the database is reachable (readiness).
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Tx is one database transaction with the queries bound to it. Everything a state change
// writes — its rows, its events, its jobs — goes through one Tx, so it commits or rolls
// back as a whole.
type Tx struct {
	s  *Store
	tx db.DBTX
	q  *db.Queries
	// last is the statement a pipelined transaction sends with COMMIT (atCommit).
	last *statement
	// spoiled: a transaction joined by InTx failed (join); what it wrote before failing
	// is still in this transaction, which must therefore not commit.
	spoiled bool
	// ended: the request transaction's work returned (IdempotentTx); a goroutine it left
	// running with its context no longer reaches this transaction.
	ended atomic.Bool
}

// maxTxAttempts bounds how often InTx runs a transaction PostgreSQL aborted for a
// serialization failure or a deadlock before the error reaches the caller.
const maxTxAttempts = 5

// InTx runs fn in a transaction, committing when fn returns nil. A transaction that
// PostgreSQL aborts for a serialization failure (40001) or a deadlock (40P01) is rolled
// back and run again, up to maxTxAttempts times with a short jittered pause: those
// aborts say nothing about the request, only about its timing against another one. fn
// must therefore only touch the database through tx and variables it sets afresh.
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	if tx := s.requestTx(ctx); tx != nil {
		return tx.join(fn)
	}
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, fn)
		if err == nil || attempt == maxTxAttempts || !retryable(err) {
			return err
		}
		pause := time.Duration(attempt) * (5*time.Millisecond + rand.N(20*time.Millisecond))
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// retryable reports whether err is PostgreSQL aborting a transaction for its timing
// against another one: a serialization failure or a detected deadlock.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// runTx runs fn in one transaction on a connection it holds until the end. The
// transaction's id and its COMMIT travel in one round trip (commitReportingID), so that
// a COMMIT whose answer is lost can still be looked up by that id (resolveCommit):
//   - COMMIT answered: success, or the server's error (the transaction rolled back);
//   - the id's answer arrived, COMMIT's did not: committed is success, rolled back is
//     the error, and when the database cannot tell, the error is commitUncertain; a
//     transaction that wrote nothing (no id) has nothing to lose: the error;
//   - neither answer arrived after COMMIT was sent: commitUncertain, as the id that
//     would tell is unknown; COMMIT never sent, or the id's query refused (COMMIT is
//     skipped then): rolled back, the error.
//
// The id is asked for at the end, not forced at BEGIN, because a transaction given an
// id must flush WAL when it commits: read-only ones would pay for that.
func (s *Store) runTx(ctx context.Context, fn func(tx *Tx) error) error {
	return s.runTxOn(ctx, false, fn)
}

// runPipelinedTx is runTx spending no round trip of its own: BEGIN is sent with the
// first statement, and the statement fn leaves with Tx.atCommit is sent with COMMIT
// (its refusal rolls back: atCommitRefused).
func (s *Store) runPipelinedTx(ctx context.Context, fn func(tx *Tx) error) error {
	return s.runTxOn(ctx, true, fn)
}

func (s *Store) runTxOn(ctx context.Context, pipelined bool, fn func(tx *Tx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The pool destroys a released connection that broke or is still in a transaction,
	// so neither serves another request.
	defer conn.Release()
	tx := &Tx{s: s}
	var rollback func()
	if pipelined {
		b := &beginWith{conn: conn.Conn()}
		tx.tx, tx.q = b, db.New(b)
		rollback = func() {
			if b.begun {
				_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			}
		}
	} else {
		ptx, err := conn.Begin(ctx)
		if err != nil {
			return err
		}
		tx.tx, tx.q = ptx, db.New(ptx)
		rollback = func() { _ = ptx.Rollback(context.WithoutCancel(ctx)) }
	}
	if err := fn(tx); err != nil {
		rollback()
		return err
	}
	if b, ok := tx.tx.(*beginWith); ok {
		if err := b.begin(ctx); err != nil {
			rollback()
			return err
		}
	}
	c := commitReportingID(ctx, conn.Conn(), tx.last)
	var pgErr *pgconn.PgError
	switch {
	case c.err == nil:
		return nil
	case c.rollBack:
		rollback()
		return c.err
	case errors.As(c.err, &pgErr):
		return c.err // the server answered: rolled back
	case !c.answered:
		return commitUncertain{c.err}
	case c.xid == nil:
		return c.err // nothing written, nothing lost
	}
	switch s.resolveCommit(ctx, *c.xid) {
	case "committed":
		return nil
	case "aborted":
		return c.err
	}
	return commitUncertain{c.err}
}

// commitResult is what commitReportingID learnt.
type commitResult struct {
	err error
	// answered: the transaction id's answer arrived; xid is nil when it has none (it
	// wrote nothing).
	answered bool
	xid      *string
	// rollBack: nothing was sent, or the server refused the id's query and skipped
	// COMMIT; the transaction is still open.
	rollBack bool
}

// commitReportingID sends, in one pipeline, last (when there is one), the query of the
// transaction's id, a Flush (the server sends those answers before it runs COMMIT) and
// COMMIT, then reads the answers in order.
func commitReportingID(ctx context.Context, conn *pgx.Conn, last *statement) commitResult {
	var p *prepared
	if last != nil {
		var err error
		if p, err = prepare(ctx, conn, last); err != nil {
			return commitResult{err: err, rollBack: true}
		}
	}
	pl := conn.PgConn().StartPipeline(ctx)
	defer pl.Close()
	if p != nil {
		p.send(pl)
	}
	pl.SendQueryParams("SELECT pg_current_xact_id_if_assigned()::text", nil, nil, nil, nil)
	pl.SendFlushRequest()
	pl.SendQueryParams("COMMIT", nil, nil, nil, nil)
	if err := pl.Sync(); err != nil {
		return commitResult{err: err, rollBack: pgconn.SafeToRetry(err)}
	}
	var r commitResult
	var pgErr *pgconn.PgError
	if p != nil {
		if r.err = readStatement(pl); r.err != nil {
			// Refused: the server skips the rest, and the transaction is rolled back.
			// Lost: nothing more is known than of a lost COMMIT with no id.
			if r.rollBack = errors.As(r.err, &pgErr); r.rollBack {
				r.err = atCommitRefused{r.err}
			}
			return r
		}
	}
	r.xid, r.err = readXID(pl)
	if r.err != nil {
		// The deferred Close reads past the skipped COMMIT before runTx rolls back.
		r.rollBack = errors.As(r.err, &pgErr)
		return r
	}
	r.answered = true
	rr, err := nextResult(pl)
	if err != nil {
		r.err = err
		return r
	}
	tag, err := rr.Close()
	switch {
	case err != nil:
		r.err = err
	case tag.String() == "ROLLBACK":
		r.err = pgx.ErrTxCommitRollback
	}
	return r
}

// readStatement reads the answer of a statement without rows from the pipeline.
func readStatement(pl *pgconn.Pipeline) error {
	rr, err := nextResult(pl)
	if err != nil {
		return err
	}
	_, err = rr.Close()
	return err
}

// readXID reads the answer of pg_current_xact_id_if_assigned from the pipeline.
func readXID(pl *pgconn.Pipeline) (*string, error) {
	rr, err := nextResult(pl)
	if err != nil {
		return nil, err
	}
	var xid *string
	for rr.NextRow() {
		if v := rr.Values()[0]; v != nil {
			id := string(v)
			xid = &id
		}
	}
	_, err = rr.Close()
	return xid, err
}

// nextResult reads the pipeline up to the next statement's answer.
func nextResult(pl *pgconn.Pipeline) (*pgconn.ResultReader, error) {
	res, err := pl.GetResults()
	if err != nil {
		return nil, err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return nil, fmt.Errorf("commit: unexpected pipeline result %T", res)
	}
	return rr, nil
}

// commitResolveFor bounds how long runTx looks up an unanswered COMMIT.
const commitResolveFor = 3 * time.Second

// resolveCommit asks, on a fresh connection, what became of transaction xid:
// "committed", "aborted", or "" when the database cannot be reached within
// commitResolveFor (or still shows it in progress).
func (s *Store) resolveCommit(ctx context.Context, xid string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitResolveFor)
	defer cancel()
	for pause := 50 * time.Millisecond; ; pause = min(2*pause, time.Second) {
		var status *string
		err := s.pool.QueryRow(ctx, "SELECT pg_xact_status($1::text::xid8)", xid).Scan(&status)
		if err == nil && status != nil && *status != "in progress" {
			return *status
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(pause):
		}
	}
}

// commitUncertain is a COMMIT whose answer was lost and whose outcome the database
// could not be asked: the transaction may or may not have been committed.
type commitUncertain struct{ err error }

func (e commitUncertain) Error() string { return "commit outcome unknown: " + e.err.Error() }
func (e commitUncertain) Unwrap() error { return e.err }

// CommitUncertain reports whether err is a transaction whose COMMIT was sent, never
// answered, and could not be looked up: its writes may be in the database. A caller
// that undoes the side effects of a failed transaction (stored bytes) keeps them then.
func CommitUncertain(err error) bool {
	var e commitUncertain
	return errors.As(err, &e)
}

// Unavailable reports whether err says the database could not serve the request now
// rather than that the request is wrong: no connection could be made or it broke, the
// server is shutting down or starting, too many connections, a timeout, or a
// transaction still aborted for its timing after InTx's retries. The same request may
// succeed when retried.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300", "40001", "40P01": // shutdown, cannot connect now, too many connections, timing
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08") // connection exception
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.Timeout(err) ||
		pgconn.SafeToRetry(err) || errors.Is(err, io.ErrUnexpectedEOF)
}

// queries returns queries for single reads and writes: in the request's transaction
// when ctx carries one (inRequestTx), on the pool otherwise.
func (s *Store) queries(ctx context.Context) *db.Queries {
	if tx := s.requestTx(ctx); tx != nil {
		return tx.q
	}
	return db.New(s.pool)
}

// interpretError maps driver errors to the store's sentinel errors.
func interpretError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%w: %s", ErrConflict, pgErr.ConstraintName)
		case "23503": // foreign_key_violation
			return fmt.Errorf("%w: %s", ErrNotFound, pgErr.ConstraintName)
		}
	}
	return err
}

// Refused reports whether err is PostgreSQL refusing a statement it received (a
// constraint, a type, a permission), rather than a failure to reach it.
func Refused(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) || errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound)
}

func eqPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
