package service

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/store"
)

// Every runs step at once and then every interval until ctx is done; it returns nil
// then, so a Loop can return it.
func Every(ctx context.Context, interval time.Duration, step func(context.Context)) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		step(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// LostJobs describes one kind of job a reconciler looks after.
type LostJobs struct {
	Subject string // the jobs' subject in messaging.JobsStream
	Durable string // the consumer that takes them
	// Orphans lists the work whose job was enqueued long ago and has not ended.
	Orphans func(context.Context) ([]uuid.UUID, error)
	// Requeue checks one orphan again and enqueues its job through the outbox,
	// reporting whether it did.
	Requeue func(context.Context, uuid.UUID) (bool, error)
	Log     *slog.Logger
	LogKey  string // the log attribute naming an orphan, e.g. upload_id
}

// Reconcile enqueues again the jobs of the orphans, when none of their jobs can still be
// in flight: no job of the subject waits in the outbox and the consumer has nothing
// pending or unacknowledged (a job merely waiting its turn is never doubled). It
// returns how many it enqueued.
func (l LostJobs) Reconcile(ctx context.Context, st *store.Store, js jetstream.JetStream) (int, error) {
	ids, err := l.Orphans(ctx)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	if waiting, err := st.OutboxWaiting(ctx, l.Subject); err != nil || waiting {
		return 0, err
	}
	if idle, err := messaging.ConsumerIdle(ctx, js, messaging.JobsStream, l.Durable); err != nil || !idle {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		done, err := l.Requeue(ctx, id)
		if err != nil {
			return n, err
		}
		if done {
			n++
			l.Log.WarnContext(ctx, "job lost; enqueued again", "subject", l.Subject, l.LogKey, id)
		}
	}
	return n, nil
}
