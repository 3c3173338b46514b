package store

import "context"

// MaxTxAttempts exposes the retry bound to the tests.
const MaxTxAttempts = maxTxAttempts

// Exec runs a statement inside the transaction, for tests that need locks no store
// method takes in the order they need.
func (tx *Tx) Exec(ctx context.Context, sql string, args ...any) error {
	_, err := tx.tx.Exec(ctx, sql, args...)
	return err
}
