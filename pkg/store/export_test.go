package store

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// MaxTxAttempts exposes the retry bound to the tests.
const MaxTxAttempts = maxTxAttempts

// Exec runs a statement inside the transaction, for tests that need locks no store
// method takes in the order they need.
func (tx *Tx) Exec(ctx context.Context, sql string, args ...any) error {
	_, err := tx.tx.Exec(ctx, sql, args...)
	return err
}

// ClientDisabled is the workers' read of whether a client is disabled (under its hold
// lock), for tests that pause between it and setting a job aside.
func (tx *Tx) ClientDisabled(ctx context.Context, client uuid.UUID) (bool, error) {
	return tx.clientDisabled(ctx, client)
}

// RetentionBatch exposes how many events a retention statement deletes.
const RetentionBatch = retentionBatch

// SetRelisten sets the pause before the cache listens again (before Watch runs).
func (c *KeyCache) SetRelisten(d time.Duration) { c.relisten = d }

// SetProbes makes the cache's listener listen on channel (keysChannel in production)
// and probe every probeEvery, waiting probeWithin for its notice (before Watch runs).
func (c *KeyCache) SetProbes(channel string, probeEvery, probeWithin time.Duration) {
	c.channel, c.probeEvery, c.probeWithin = channel, probeEvery, probeWithin
}
