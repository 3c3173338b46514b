package messaging

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
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
}

// Consume runs handler over the consumer's messages until ctx is done, then stops
// fetching and waits for the messages in work.
func Consume(ctx context.Context, js jetstream.JetStream, spec ConsumerSpec, handler Handler, log *slog.Logger) error {
	if spec.Concurrency <= 0 {
		spec.Concurrency = 1
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, spec.Stream, jetstream.ConsumerConfig{
		Durable:       spec.Durable,
		FilterSubject: spec.FilterSubject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       spec.AckWait,
		MaxDeliver:    spec.MaxDeliver,
		MaxAckPending: spec.Concurrency * 64,
	})
	if err != nil {
		return fmt.Errorf("consumer %s: %w", spec.Durable, err)
	}
	slots := make(chan struct{}, spec.Concurrency)
	var inWork sync.WaitGroup
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		slots <- struct{}{}
		inWork.Go(func() {
			defer func() { <-slots }()
			// The ack timer ran while the message waited for a free slot: restart it.
			_ = msg.InProgress()
			settle(ctx, msg, handler, log)
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
func settle(ctx context.Context, msg jetstream.Msg, handler Handler, log *slog.Logger) {
	// Work started is finished even during shutdown; only new fetches stop.
	err := protect(func() error { return handler(context.WithoutCancel(ctx), msg) })
	switch {
	case err == nil:
		if err := msg.Ack(); err != nil {
			log.Warn("ack", "subject", msg.Subject(), "error", err)
		}
	case errors.Is(err, ErrPermanent):
		log.Error("message terminated", "subject", msg.Subject(), "error", err)
		_ = msg.Term()
	default:
		delay := redeliveryDelay(msg)
		log.Warn("message failed, redelivering", "subject", msg.Subject(), "error", err, "retry_in", delay)
		_ = msg.NakWithDelay(delay)
	}
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
func redeliveryDelay(msg jetstream.Msg) time.Duration {
	n := uint64(1)
	if md, err := msg.Metadata(); err == nil && md.NumDelivered > 0 {
		n = md.NumDelivered
	}
	d := time.Second << min(n-1, 6)
	return min(d, time.Minute)
}
