package store

import (
	"context"
	"errors"
)

// A request transaction holds everything one API request writes — an Idempotency-Key's
// claim, the handler's work and the answer kept for the key — so they commit together
// (IdempotentTx). Code that runs inside it reaches it through its context: InTx joins
// it instead of beginning a transaction, and single reads and writes (queries) run in
// it, so a handler reads what it wrote.

type requestTxKey struct{}

// withRequestTx returns ctx carrying tx as the request transaction.
func withRequestTx(ctx context.Context, tx *Tx) context.Context {
	return context.WithValue(ctx, requestTxKey{}, tx)
}

// requestTx is the request transaction ctx carries for this store, or nil.
func (s *Store) requestTx(ctx context.Context) *Tx {
	tx, _ := ctx.Value(requestTxKey{}).(*Tx)
	if tx == nil || tx.s != s || tx.ended.Load() {
		return nil
	}
	return tx
}

// join runs fn as part of the request transaction. A failure cannot be rolled back
// alone (that would cost a savepoint per transaction), so it spoils the request
// transaction: IdempotentTx rolls all of it back, and the request is run again without
// one, where fn's transaction is its own.
func (tx *Tx) join(fn func(tx *Tx) error) error {
	if err := fn(tx); err != nil {
		tx.spoiled = true
		return err
	}
	return nil
}

// errSetAside ends a request transaction without committing it.
var errSetAside = errors.New("request transaction set aside")
