// Package outbox publishes outbox rows to JetStream. Every service runs a relay; rows are
// claimed with FOR UPDATE SKIP LOCKED, so replicas share the work, and each message id is
// the row's id, so a row published twice (a relay killed between publish and delete) is
// dropped by JetStream's duplicate window.
package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/store"
)

// Channel is the PostgreSQL notification channel an outbox insert signals.
const Channel = "doceval_outbox"

// Relay moves outbox rows to JetStream.
type Relay struct {
	Store *store.Store
	JS    jetstream.JetStream
	Log   *slog.Logger
	// BatchSize is how many rows one transaction claims (default 256).
	BatchSize int
	// PollInterval bounds the latency when a notification is lost (default 1s).
	PollInterval time.Duration
	// BeforeDelete runs after a batch was published and before its rows are deleted.
	// Tests use it to stop a relay in exactly that window.
	BeforeDelete func(ctx context.Context) error
	// Published counts messages acknowledged by JetStream (nil = not counted).
	Published prometheus.Counter
}

// Run relays until ctx is done.
func (r *Relay) Run(ctx context.Context) error {
	batch := r.BatchSize
	if batch <= 0 {
		batch = 256
	}
	poll := r.PollInterval
	if poll <= 0 {
		poll = time.Second
	}
	wake := make(chan struct{}, 1)
	go r.listen(ctx, wake)

	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	backoff := 100 * time.Millisecond
	for {
		err := r.Drain(ctx, batch)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			r.Log.Warn("outbox relay", "error", err, "retry_in", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 10*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-ticker.C:
		}
	}
}

// listen turns outbox notifications into wake-ups. It holds one pooled connection.
func (r *Relay) listen(ctx context.Context, wake chan<- struct{}) {
	for ctx.Err() == nil {
		err := r.listenOnce(ctx, wake)
		if ctx.Err() != nil {
			return
		}
		r.Log.Warn("outbox listener", "error", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (r *Relay) listenOnce(ctx context.Context, wake chan<- struct{}) error {
	conn, err := r.Store.Pool().Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return err
	}
	// The connection goes back to the pool after UNLISTEN; a broken one is destroyed.
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), "UNLISTEN "+Channel); err != nil {
			_ = conn.Conn().Close(context.WithoutCancel(ctx))
		}
	}()
	for {
		if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
			return err
		}
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// Drain publishes batches until the outbox is empty.
func (r *Relay) Drain(ctx context.Context, batchSize int) error {
	for {
		n, err := r.relayBatch(ctx, batchSize)
		if err != nil || n < batchSize {
			return err
		}
	}
}

func (r *Relay) relayBatch(ctx context.Context, batchSize int) (int, error) {
	b, err := r.Store.ClaimOutbox(ctx, batchSize)
	if err != nil {
		return 0, fmt.Errorf("claim outbox: %w", err)
	}
	if len(b.Messages) == 0 {
		b.Abort(ctx)
		return 0, nil
	}
	futures := make([]jetstream.PubAckFuture, len(b.Messages))
	for i, m := range b.Messages {
		futures[i], err = r.JS.PublishAsync(m.Subject, m.Payload, jetstream.WithMsgID(m.ID.String()))
		if err != nil {
			futures = futures[:i]
			break
		}
	}
	published := make([]int64, 0, len(futures))
	var pubErr error
	for i, f := range futures {
		select {
		case <-f.Ok():
			published = append(published, b.Messages[i].Seq)
		case e := <-f.Err():
			pubErr = errors.Join(pubErr, e)
		case <-ctx.Done():
			b.Abort(context.WithoutCancel(ctx))
			return 0, ctx.Err()
		}
	}
	if err != nil {
		pubErr = errors.Join(pubErr, err)
	}
	if r.BeforeDelete != nil {
		if err := r.BeforeDelete(ctx); err != nil {
			b.Abort(context.WithoutCancel(ctx))
			return 0, err
		}
	}
	if err := b.Done(ctx, published); err != nil {
		return 0, fmt.Errorf("delete published outbox rows: %w", err)
	}
	if r.Published != nil {
		r.Published.Add(float64(len(published)))
	}
	if pubErr != nil {
		return len(published), fmt.Errorf("publish: %w", pubErr)
	}
	return len(b.Messages), nil
}
