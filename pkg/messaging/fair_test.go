package messaging_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
)

type fairBundle struct {
	js   jetstream.JetStream
	spec messaging.FairSpec

	mu      sync.Mutex
	started []string // the bodies of the jobs begun, in order
	inWork  int
	maxWork int
}

func setupFair(t *testing.T) *fairBundle {
	t.Helper()
	return &fairBundle{js: jetStream(t), spec: messaging.FairSpec{
		Queue: jobs.IngestQueue, Durable: "test", Legacy: jobs.IngestSubject,
		AckWait: 10 * time.Second, MaxDeliver: -1, Concurrency: 2, Sweep: 200 * time.Millisecond,
	}}
}

// publish enqueues n jobs of client, named client-i.
func (b *fairBundle) publish(t *testing.T, client uuid.UUID, n int) {
	t.Helper()
	for i := range n {
		body := fmt.Sprintf("%s-%d", client, i)
		_, err := b.js.PublishAsync(jobs.QueueSubject(jobs.IngestQueue, client), []byte(body), jetstream.WithMsgID(body))
		require.NoError(t, err)
	}
	select {
	case <-b.js.PublishAsyncComplete():
	case <-time.After(30 * time.Second):
		t.Fatal("publishes not acknowledged")
	}
}

// handler records each job and works on it for took.
func (b *fairBundle) handler(took time.Duration) messaging.Handler {
	return func(_ context.Context, msg jetstream.Msg) error {
		b.mu.Lock()
		b.started = append(b.started, string(msg.Data()))
		b.inWork++
		b.maxWork = max(b.maxWork, b.inWork)
		b.mu.Unlock()
		time.Sleep(took)
		b.mu.Lock()
		b.inWork--
		b.mu.Unlock()
		return nil
	}
}

func (b *fairBundle) startedJobs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.started...)
}

// consume runs ConsumeFair until the returned stop is called or the test ends.
func (b *fairBundle) consume(t *testing.T, handler messaging.Handler, opts ...messaging.ConsumeOption) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- messaging.ConsumeFair(ctx, b.js, b.spec, handler, slog.New(slog.DiscardHandler), opts...)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
	t.Cleanup(stop)
	return stop
}

// A client alone has every slot: its jobs run as many at once as the process has slots;
// ClientConcurrency, when set, caps them.
func TestConsumeFairOneClientUsesEverySlot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ slots, perClient, want int }{{3, 0, 3}, {3, 1, 1}} {
		t.Run(fmt.Sprintf("%d slots, cap %d", c.slots, c.perClient), func(t *testing.T) {
			t.Parallel()
			b := setupFair(t)
			b.spec.Concurrency, b.spec.ClientConcurrency = c.slots, c.perClient
			b.publish(t, uuid.New(), 6)
			b.consume(t, b.handler(100*time.Millisecond))
			eventually(t, "every job is done", func() bool { return len(b.startedJobs()) == 6 })
			b.mu.Lock()
			defer b.mu.Unlock()
			require.Equal(t, c.want, b.maxWork)
		})
	}
}

// A client that shows up behind another's flood has its job begun when the next slot
// frees, however long the flood; and a cap per client, when set, holds.
func TestConsumeFairNewcomerWaitsOneJob(t *testing.T) {
	t.Parallel()
	b := setupFair(t)
	flooder, newcomer := uuid.New(), uuid.New()
	b.publish(t, flooder, 500)
	b.consume(t, b.handler(50*time.Millisecond))
	eventually(t, "the flood is in work", func() bool { return len(b.startedJobs()) >= 4 })
	before := len(b.startedJobs())
	b.publish(t, newcomer, 1)
	eventually(t, "the newcomer's job is begun", func() bool {
		for _, s := range b.startedJobs() {
			if s == newcomer.String()+"-0" {
				return true
			}
		}
		return false
	})
	after := b.startedJobs()
	at := len(after) - 1
	for after[at] != newcomer.String()+"-0" {
		at--
	}
	// The job was published after `before` jobs had begun; the flood's jobs begun
	// between that and the newcomer's are those whose slots freed while the newcomer's
	// announcement was on its way: at most one per slot.
	require.LessOrEqual(t, at-before, b.spec.Concurrency, "flood jobs begun before the newcomer's: %d", at-before)
}

// Jobs on the subject used before per-client queues are still taken; QueueIdle holds
// while any job of the queue, old or new, is not done.
func TestConsumeFairLegacyAndIdle(t *testing.T) {
	t.Parallel()
	b := setupFair(t)
	ctx := context.Background()
	_, err := b.js.PublishMsg(ctx, &nats.Msg{Subject: jobs.IngestSubject, Data: []byte("old")}, jetstream.WithMsgID("old"))
	require.NoError(t, err)
	b.publish(t, uuid.New(), 2)
	release := make(chan struct{})
	stop := b.consume(t, func(ctx context.Context, msg jetstream.Msg) error {
		<-release
		return b.handler(0)(ctx, msg)
	})
	eventually(t, "the consumers exist", func() bool {
		_, err := b.js.Consumer(ctx, messaging.JobsStream, "test")
		return err == nil
	})
	idle, err := messaging.QueueIdle(ctx, b.js, jobs.IngestQueue, "test")
	require.NoError(t, err)
	require.False(t, idle, "jobs waiting")
	close(release)
	eventually(t, "every job is done", func() bool { return len(b.startedJobs()) == 3 })
	eventually(t, "the queue is idle", func() bool {
		idle, err := messaging.QueueIdle(ctx, b.js, jobs.IngestQueue, "test")
		return err == nil && idle
	})
	require.Contains(t, b.startedJobs(), "old")
	stop()
}

// A job in work when its process stops is finished; the others stay in the queue and
// are taken by the next process; a client's consumer removed when idle is made again.
func TestConsumeFairRestart(t *testing.T) {
	t.Parallel()
	b := setupFair(t)
	b.spec.Concurrency, b.spec.IdleConsumer = 1, time.Second
	client := uuid.New()
	b.publish(t, client, 5)
	stop := b.consume(t, b.handler(300*time.Millisecond))
	eventually(t, "a job is in work", func() bool { return len(b.startedJobs()) == 1 })
	stop()
	require.Len(t, b.startedJobs(), 1, "only the job in hand is finished")

	b.consume(t, b.handler(0))
	eventually(t, "every job is done", func() bool { return len(b.startedJobs()) == 5 })

	// Unused past IdleConsumer, the client's consumer goes; a new job brings it back.
	ctx := context.Background()
	eventually(t, "the idle consumer is removed", func() bool {
		_, err := b.js.Consumer(ctx, messaging.QueuesStream, "test-"+client.String())
		return err != nil
	})
	b.publish(t, client, 6) // ids 0-4 are duplicates inside the window: one new job
	eventually(t, "the new job is done", func() bool { return len(b.startedJobs()) == 6 })
}

// The backlog gauges of a queue sum its clients' consumers.
func TestConsumeFairMetrics(t *testing.T) {
	t.Parallel()
	b := setupFair(t)
	reg := prometheus.NewRegistry()
	release := make(chan struct{})
	b.publish(t, uuid.New(), 2)
	b.publish(t, uuid.New(), 3)
	b.consume(t, func(ctx context.Context, msg jetstream.Msg) error {
		<-release
		return nil
	}, messaging.WithMetrics(messaging.NewMetrics(reg)))
	defer close(release)
	eventually(t, "two jobs in work, three waiting", func() bool {
		pending, ok1 := metricstest.Value(t, reg, "doceval_jetstream_consumer_pending_messages", "stream", messaging.QueuesStream, "consumer", "test")
		acks, ok2 := metricstest.Value(t, reg, "doceval_jetstream_consumer_ack_pending_messages", "stream", messaging.QueuesStream, "consumer", "test")
		return ok1 && ok2 && acks == 2 && pending == 3
	})
}

// A client's consumer deleted behind the worker's back (an operator, lost state) is made
// again: the client's later jobs are still taken.
func TestConsumeFairRemakesADeletedConsumer(t *testing.T) {
	t.Parallel()
	b := setupFair(t)
	client := uuid.New()
	b.publish(t, client, 1)
	b.consume(t, b.handler(0))
	eventually(t, "the first job is done", func() bool { return len(b.startedJobs()) == 1 })
	durable := b.spec.Durable + "-" + client.String()
	require.NoError(t, b.js.DeleteConsumer(context.Background(), messaging.QueuesStream, durable))
	for i := range 3 {
		body := fmt.Sprintf("%s-later-%d", client, i)
		_, err := b.js.Publish(context.Background(), jobs.QueueSubject(jobs.IngestQueue, client), []byte(body), jetstream.WithMsgID(body))
		require.NoError(t, err)
	}
	eventually(t, "the later jobs are done", func() bool { return len(b.startedJobs()) == 4 })
}
