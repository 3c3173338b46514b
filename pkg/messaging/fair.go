package messaging

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/doceval/doceval/pkg/jobs"
)

// FairSpec describes a per-client job queue (jobs.QueueSubject) and how one process of a
// service works on it.
//
// Every API client's jobs have a subject of their own in QueuesStream, and one durable
// pull consumer per client and service ("<Durable>-<client>"), made on demand, shared by
// the service's replicas and removed by JetStream when idle. When a slot is free, the
// process takes one message from the active client with the fewest jobs in work here
// (ties: the one served least recently). So a client alone uses every slot, and a client
// that shows up behind another's flood has its first job started as soon as a slot
// frees, whatever the flood's size: no window of fetched messages to look past.
type FairSpec struct {
	// Queue names the jobs (jobs.IngestQueue).
	Queue string
	// Durable prefixes the per-client consumers' names; the consumer of Legacy too.
	Durable string
	// Legacy is the subject in JobsStream that carried these jobs before per-client
	// queues; its consumer (Durable) is one more source, served like a client.
	Legacy string
	// AckWait, MaxDeliver and Concurrency as in ConsumerSpec.
	AckWait     time.Duration
	MaxDeliver  int
	Concurrency int
	// ClientConcurrency caps the jobs of one client in work in this process (0: none,
	// a client alone uses every slot).
	ClientConcurrency int
	// Sweep is how often the queues' backlog is read from JetStream, to find the jobs
	// a wake-up did not announce: redeliveries due, jobs of other replicas' dead
	// workers, wake-ups missed while disconnected (default 1s).
	Sweep time.Duration
	// IdleConsumer is how long a client's consumer may go unused before JetStream
	// removes it (default an hour, at least twice AckWait). Its jobs stay in the stream
	// and the consumer is made again when it has some.
	IdleConsumer time.Duration
}

func (s FairSpec) withDefaults() FairSpec {
	s.Concurrency = max(s.Concurrency, 1)
	if s.Sweep <= 0 {
		s.Sweep = time.Second
	}
	if s.IdleConsumer <= 0 {
		s.IdleConsumer = max(time.Hour, 2*s.AckWait)
	}
	return s
}

// fetchTimeout bounds the wait for the answer to a pull request that asks for no wait:
// an answer lost in a reconnect must not stall the scheduler.
const fetchTimeout = 5 * time.Second

// legacyKey is the source key of the Legacy consumer.
const legacyKey = ""

// fairSource is one client's queue (or the legacy consumer) as this process sees it.
type fairSource struct {
	key    string // the client id as in the subject; legacyKey for Legacy
	cons   jetstream.Consumer
	inWork int
	served uint64 // the scheduler's clock when a job of it last started
	ready  bool   // it may have a job to take now
}

// fairConsumer is one running ConsumeFair.
type fairConsumer struct {
	consumer
	fair FairSpec
	js   jetstream.JetStream

	mu      sync.Mutex
	hinted  map[string]bool // clients announced by a wake-up since the scheduler looked
	wake    chan struct{}
	sources map[string]*fairSource
	clock   uint64
	inWork  int
}

// ConsumeFair runs handler over the jobs of spec's queue until ctx is done, then stops
// taking jobs and waits for those in work; it takes one job per free slot, so nothing
// fetched is left to give back. Handlers are as for Consume.
func ConsumeFair(ctx context.Context, js jetstream.JetStream, spec FairSpec, handler Handler, log *slog.Logger, opts ...ConsumeOption) error {
	spec = spec.withDefaults()
	f := &fairConsumer{
		consumer: consumer{
			spec:    ConsumerSpec{Stream: QueuesStream, Durable: spec.Durable, AckWait: spec.AckWait, MaxDeliver: spec.MaxDeliver, Concurrency: spec.Concurrency},
			handler: handler, log: log, tracer: noop.NewTracerProvider().Tracer(instrumentationName),
		},
		fair: spec, js: js,
		hinted: map[string]bool{}, wake: make(chan struct{}, 1), sources: map[string]*fairSource{},
	}
	for _, o := range opts {
		o(&f.consumer)
	}
	legacy, err := js.CreateOrUpdateConsumer(ctx, JobsStream, spec.consumerOf(legacyKey))
	if err != nil {
		return fmt.Errorf("consumer %s: %w", spec.Durable, err)
	}
	f.sources[legacyKey] = &fairSource{key: legacyKey, cons: legacy, ready: true}
	defer f.metrics.track(JobsStream, spec.Durable, consumerState(legacy))()
	defer f.metrics.track(QueuesStream, spec.Durable, f.queueState)()

	// JetStream's publishes reach core subscribers too: a job announces its client the
	// moment it is stored, and the sweep finds what this misses.
	sub, err := js.Conn().Subscribe(jobs.QueueSubjects(spec.Queue), func(m *nats.Msg) {
		f.hint(strings.TrimPrefix(m.Subject, jobs.QueueSubjectPrefix+spec.Queue+"."))
	})
	if err != nil {
		return fmt.Errorf("subscribe %s: %w", jobs.QueueSubjects(spec.Queue), err)
	}
	defer func() { _ = sub.Unsubscribe() }()

	var inWork sync.WaitGroup
	defer inWork.Wait()
	sweep := time.NewTicker(spec.Sweep)
	defer sweep.Stop()
	f.sweep(ctx)
	for ctx.Err() == nil {
		f.takeHints()
		if f.free() {
			if src := f.pick(); src != nil {
				switch msg := f.fetch(ctx, src); {
				case msg == nil:
					src.ready = false
				case ctx.Err() != nil:
					_ = msg.Nak() // stopped while it came: back at once, for a replica that stays
				default:
					f.start(ctx, &inWork, src, msg)
				}
				continue
			}
		}
		select {
		case <-ctx.Done():
		case <-f.wake:
		case <-sweep.C:
			f.sweep(ctx)
		}
	}
	return nil
}

// ClientConsumer is the consumer of client's queue, as ConsumeFair makes it.
func (s FairSpec) ClientConsumer(client uuid.UUID) jetstream.ConsumerConfig {
	return s.withDefaults().consumerOf(client.String())
}

func (s FairSpec) consumerOf(key string) jetstream.ConsumerConfig {
	if key == legacyKey {
		return s.config(s.Durable, s.Legacy, 0)
	}
	return s.config(s.Durable+"-"+key, jobs.QueueSubjectPrefix+s.Queue+"."+key, s.IdleConsumer)
}

func (s FairSpec) config(durable, subject string, inactive time.Duration) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable: durable, FilterSubject: subject, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: s.AckWait, MaxDeliver: s.MaxDeliver, InactiveThreshold: inactive,
		// One job is taken per free slot; the bound only caps the jobs waiting for a
		// redelivery after a failure.
		MaxAckPending: 10000,
	}
}

// hint marks client as having a job, and wakes the scheduler.
func (f *fairConsumer) hint(client string) {
	f.mu.Lock()
	f.hinted[client] = true
	f.mu.Unlock()
	f.poke()
}

func (f *fairConsumer) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// takeHints turns the wake-ups received into ready sources.
func (f *fairConsumer) takeHints() {
	f.mu.Lock()
	hinted := f.hinted
	f.hinted = map[string]bool{}
	f.mu.Unlock()
	for client := range hinted {
		f.source(client).ready = true
	}
}

func (f *fairConsumer) source(key string) *fairSource {
	src := f.sources[key]
	if src == nil {
		src = &fairSource{key: key}
		f.sources[key] = src
	}
	return src
}

// free reports whether a slot is free.
func (f *fairConsumer) free() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inWork < f.fair.Concurrency
}

// pick is the ready source with the fewest jobs in work here, the least recently
// served among equals; nil when none may take a job.
func (f *fairConsumer) pick() *fairSource {
	f.mu.Lock()
	defer f.mu.Unlock()
	var best *fairSource
	for _, src := range f.sources {
		if !src.ready || (f.fair.ClientConcurrency > 0 && src.key != legacyKey && src.inWork >= f.fair.ClientConcurrency) {
			continue
		}
		if best == nil || src.inWork < best.inWork || (src.inWork == best.inWork && src.served < best.served) {
			best = src
		}
	}
	return best
}

// fetch takes the next job of src, if it has one ready now.
func (f *fairConsumer) fetch(ctx context.Context, src *fairSource) jetstream.Msg {
	if src.cons == nil {
		cfg := f.fair.consumerOf(src.key)
		cons, err := f.js.CreateOrUpdateConsumer(ctx, QueuesStream, cfg)
		if err != nil {
			if ctx.Err() == nil {
				f.log.Warn("consumer", "consumer", cfg.Durable, "error", err)
			}
			return nil
		}
		src.cons = cons
	}
	batch, err := src.cons.FetchNoWait(1)
	if err != nil {
		f.forget(src, err)
		return nil
	}
	select {
	case msg, ok := <-batch.Messages():
		if !ok {
			f.forget(src, batch.Error())
			return nil
		}
		return msg
	case <-time.After(fetchTimeout):
		return nil
	}
}

// forget drops a client's consumer after a fetch failed (not merely found nothing), to
// make it again on the next pick: JetStream removed it (idle), an operator deleted it,
// or a fetch to a consumer gone answers no responders. A handle kept after that would
// never fetch the client's jobs again.
func (f *fairConsumer) forget(src *fairSource, err error) {
	if src.key != legacyKey && err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		src.cons = nil
	}
}

// start hands msg to the handler in a slot of its own.
func (f *fairConsumer) start(ctx context.Context, inWork *sync.WaitGroup, src *fairSource, msg jetstream.Msg) {
	f.mu.Lock()
	f.clock++
	src.served = f.clock
	src.inWork++
	f.inWork++
	f.mu.Unlock()
	inWork.Go(func() {
		defer func() {
			f.mu.Lock()
			src.inWork--
			f.inWork--
			f.mu.Unlock()
			f.poke()
		}()
		f.settle(ctx, msg)
	})
}

// sweep reads which clients have jobs in the queue (waiting, in work elsewhere, or
// waiting for a redelivery) and marks them ready; sources with none and nothing in work
// here are forgotten, so the map holds the active clients only.
func (f *fairConsumer) sweep(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	counts, err := queueCounts(ctx, f.js, f.fair.Queue)
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("read the queue's backlog", "queue", f.fair.Queue, "error", err)
		}
		return
	}
	legacy := f.sources[legacyKey]
	if info, err := legacy.cons.Info(ctx); err == nil {
		legacy.ready = info.NumPending+uint64(info.NumAckPending) > 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, src := range f.sources {
		if key != legacyKey && counts[key] == 0 && src.inWork == 0 && !f.hinted[key] {
			delete(f.sources, key)
		}
	}
	for client := range counts {
		src := f.sources[client]
		if src == nil {
			src = &fairSource{key: client}
			f.sources[client] = src
		}
		src.ready = true
	}
}

// queueCounts is the number of jobs each client has in queue, by client id: waiting,
// in work, or waiting for a redelivery (the stream removes a job once acknowledged).
func queueCounts(ctx context.Context, js jetstream.JetStream, queue string) (map[string]uint64, error) {
	stream, err := js.Stream(ctx, QueuesStream)
	if err != nil {
		return nil, err
	}
	prefix := jobs.QueueSubjectPrefix + queue + "."
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(prefix+"*"))
	if err != nil {
		return nil, err
	}
	counts := make(map[string]uint64, len(info.State.Subjects))
	for subject, n := range info.State.Subjects {
		if n > 0 {
			counts[strings.TrimPrefix(subject, prefix)] = n
		}
	}
	return counts, nil
}

// QueueIdle reports whether no job of queue can still be delivered: none in its
// per-client queues, and the consumer of its legacy subject (durable) idle
// (ConsumerIdle). A reconciler uses it to tell a job whose message was lost from one
// that merely waits its turn.
func QueueIdle(ctx context.Context, js jetstream.JetStream, queue, durable string) (bool, error) {
	counts, err := queueCounts(ctx, js, queue)
	if err != nil || len(counts) > 0 {
		return false, err
	}
	return ConsumerIdle(ctx, js, JobsStream, durable)
}

// queueState sums the state of the queue's per-client consumers, for the backlog
// gauges: one listing, whatever the number of clients.
func (f *fairConsumer) queueState(ctx context.Context) (consumerCounts, error) {
	var sum consumerCounts
	stream, err := f.js.Stream(ctx, QueuesStream)
	if err != nil {
		return sum, err
	}
	lister := stream.ListConsumers(ctx)
	for info := range lister.Info() {
		if strings.HasPrefix(info.Name, f.fair.Durable+"-") {
			sum.pending += info.NumPending
			sum.ackPending += uint64(info.NumAckPending)
			sum.redelivered += uint64(info.NumRedelivered)
		}
	}
	return sum, lister.Err()
}
