package service

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/doceval/doceval/pkg/jobs"
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
	// Queue is the jobs' per-client queue (jobs.QueueSubject), if they have one.
	Queue   string
	Subject string // the jobs' subject in messaging.JobsStream (before Queue, if any)
	Durable string // the consumer of Subject
	// Orphans lists the work whose job was enqueued long ago and has not ended.
	Orphans func(context.Context) ([]uuid.UUID, error)
	// Requeue checks one orphan again and enqueues its job through the outbox,
	// reporting whether it did.
	Requeue func(context.Context, uuid.UUID) (bool, error)
	Log     *slog.Logger
	LogKey  string // the log attribute naming an orphan, e.g. upload_id
}

// Reconcile enqueues again the jobs of the orphans, when none of their jobs can still be
// in flight: no job of the queue waits in the outbox, none is in its per-client queues
// and the consumer of the old subject has nothing pending or unacknowledged (a job
// merely waiting its turn is never doubled). It returns how many it enqueued.
func (l LostJobs) Reconcile(ctx context.Context, st *store.Store, js jetstream.JetStream) (int, error) {
	ids, err := l.Orphans(ctx)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	if idle, err := l.idle(ctx, st, js); err != nil || !idle {
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

// idle reports whether no job of the kind can still be delivered.
func (l LostJobs) idle(ctx context.Context, st *store.Store, js jetstream.JetStream) (bool, error) {
	if l.Queue == "" {
		if waiting, err := st.OutboxWaiting(ctx, l.Subject, l.Subject); err != nil || waiting {
			return false, err
		}
		return messaging.ConsumerIdle(ctx, js, messaging.JobsStream, l.Durable)
	}
	if waiting, err := st.OutboxWaiting(ctx, l.Subject, jobs.QueueSubjectPrefix+l.Queue+"."); err != nil || waiting {
		return false, err
	}
	return messaging.QueueIdle(ctx, js, l.Queue, l.Durable)
}
