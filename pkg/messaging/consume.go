package messaging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// ErrPermanent marks a message that can never succeed (a poison message): it is
// terminated instead of redelivered. Wrap it: fmt.Errorf("...: %w", ErrPermanent).
var ErrPermanent = errors.New("permanent failure")

// Handler processes one message. nil acks it; an error wrapping ErrPermanent terminates
// it; any other error redelivers it after a backoff.
type Handler func(ctx context.Context, msg jetstream.Msg) error

// ConsumerSpec describes a durable consumer shared by all replicas of a service.
type ConsumerSpec struct {
	Stream        string
	Durable       string
	FilterSubject string
	// AckWait is how long a message may be in work before JetStream redelivers it
	// (a worker killed mid-message loses nothing). Handlers that run longer call
	// msg.InProgress to extend it.
	AckWait time.Duration
	// MaxDeliver bounds redeliveries; -1 means unlimited.
	MaxDeliver int
	// Concurrency is how many messages one process handles at once (default 1).
	Concurrency int
	// MaxAckPending bounds the messages delivered and not yet acknowledged, those
	// waiting for a redelivery included (default Concurrency × 64).
	MaxAckPending int
}

// ConsumeOption instruments Consume.
type ConsumeOption func(*consumer)

// WithMetrics counts and times the consumer's messages, and reports its backlog, on m.
func WithMetrics(m *Metrics) ConsumeOption { return func(c *consumer) { c.metrics = m } }

// WithTracerProvider starts a consumer span per message with tp, a child of the trace
// context in the message's headers. Without it the handler still receives that trace
// context, so what it writes to the outbox continues the trace.
func WithTracerProvider(tp trace.TracerProvider) ConsumeOption {
	return func(c *consumer) { c.tracer = tp.Tracer(instrumentationName) }
}

// consumer is one running Consume.
type consumer struct {
	spec    ConsumerSpec
	handler Handler
	log     *slog.Logger
	metrics *Metrics
	tracer  trace.Tracer
}

// Consume runs handler over the consumer's messages until ctx is done, then stops
// fetching and waits for the messages in work.
func Consume(ctx context.Context, js jetstream.JetStream, spec ConsumerSpec, handler Handler, log *slog.Logger, opts ...ConsumeOption) error {
	if spec.Concurrency <= 0 {
		spec.Concurrency = 1
	}
	c := &consumer{spec: spec, handler: handler, log: log, tracer: noop.NewTracerProvider().Tracer(instrumentationName)}
	for _, o := range opts {
		o(c)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, spec.Stream, jetstream.ConsumerConfig{
		Durable:       spec.Durable,
		FilterSubject: spec.FilterSubject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       spec.AckWait,
		MaxDeliver:    spec.MaxDeliver,
		MaxAckPending: cmp.Or(spec.MaxAckPending, spec.Concurrency*64),
	})
	if err != nil {
		return fmt.Errorf("consumer %s: %w", spec.Durable, err)
	}
	defer c.metrics.track(spec.Stream, spec.Durable, consumerState(cons))()
	slots := make(chan struct{}, spec.Concurrency)
	var inWork sync.WaitGroup
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		// Shutting down: messages fetched but not started go back at once, to a replica
		// that stays (Drain still hands over what was buffered). Only the work in hand is
		// finished, so a grace period sized for one round of handlers holds.
		acquired := false
		select {
		case slots <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			if acquired {
				<-slots
			}
			_ = msg.Nak()
			return
		}
		inWork.Go(func() {
			defer func() { <-slots }()
			// The ack timer ran while the message waited for a free slot: restart it.
			_ = msg.InProgress()
			c.settle(ctx, msg)
		})
	}, jetstream.PullMaxMessages(spec.Concurrency*2))
	if err != nil {
		return fmt.Errorf("consume %s: %w", spec.Durable, err)
	}
	<-ctx.Done()
	cc.Drain()
	<-cc.Closed()
	inWork.Wait()
	return nil
}

// settle runs the handler and acknowledges the message according to its result.
func (c *consumer) settle(ctx context.Context, msg jetstream.Msg) {
	delivered := uint64(1)
	if md, err := msg.Metadata(); err == nil && md.NumDelivered > 0 {
		delivered = md.NumDelivered
	}
	// Work started is finished even during shutdown; only new fetches stop.
	ctx, span := c.startSpan(context.WithoutCancel(ctx), msg, delivered)
	defer span.End()
	start := time.Now()
	err := protect(func() error { return c.handler(ctx, msg) })
	took := time.Since(start)
	outcome := outcomeAck
	switch {
	case err == nil:
		if err := msg.Ack(); err != nil {
			c.log.Warn("ack", "subject", msg.Subject(), "error", err)
		}
	case errors.Is(err, ErrPermanent):
		outcome = outcomeTerm
		c.log.Error("message terminated", "subject", msg.Subject(), "error", err)
		_ = msg.Term()
	default:
		outcome = outcomeRetry
		delay := redeliveryDelay(delivered)
		c.log.Warn("message failed, redelivering", "subject", msg.Subject(), "error", err, "retry_in", delay)
		_ = msg.NakWithDelay(delay)
	}
	c.metrics.observe(c.spec.Durable, outcome, delivered > 1, took)
	endSpan(span, outcome, err)
}

// protect turns a handler's panic into an error (the message is redelivered, the
// worker lives on).
func protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// redeliveryDelay grows with the delivery count: 1s, 2s, 4s … capped at one minute.
func redeliveryDelay(delivered uint64) time.Duration {
	d := time.Second << min(max(delivered, 1)-1, 6)
	return min(d, time.Minute)
}

// ConsumerIdle reports whether a durable consumer has nothing in flight: no message
// waiting to be delivered to it and none delivered but not yet acknowledged (those
// waiting for a redelivery included). A reconciler uses it to tell a job whose
// message was lost from one that merely waits its turn.
func ConsumerIdle(ctx context.Context, js jetstream.JetStream, stream, durable string) (bool, error) {
	c, err := js.Consumer(ctx, stream, durable)
	if err != nil {
		return false, err
	}
	info, err := c.Info(ctx)
	if err != nil {
		return false, err
	}
	return info.NumPending == 0 && info.NumAckPending == 0, nil
}
