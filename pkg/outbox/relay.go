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

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/tracing"
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
	// Tracer starts a producer span per message, a child of the trace context stored
	// with its row (nil = no spans; the stored context is still published).
	Tracer trace.TracerProvider
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
	tracer := r.tracer()
	futures := make([]jetstream.PubAckFuture, len(b.Messages))
	spans := make([]trace.Span, len(b.Messages))
	for i, m := range b.Messages {
		var msg *nats.Msg
		msg, spans[i] = publication(ctx, tracer, m)
		futures[i], err = r.JS.PublishMsgAsync(msg, jetstream.WithMsgID(m.ID.String()))
		if err != nil {
			endPublication(spans[i], err)
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
			endPublication(spans[i], nil)
		case e := <-f.Err():
			pubErr = errors.Join(pubErr, e)
			endPublication(spans[i], e)
		case <-ctx.Done():
			for _, span := range spans[i:len(futures)] {
				endPublication(span, ctx.Err())
			}
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

func (r *Relay) tracer() trace.Tracer {
	tp := r.Tracer
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer("github.com/doceval/doceval/pkg/outbox")
}

// publication is the NATS message of an outbox row and its producer span. The span is
// a child of the row's stored trace context, and its own context goes out in the
// headers, so the consumer's span follows it in the same trace. With tracing off here
// the span is the stored context itself, passed on unchanged.
func publication(ctx context.Context, tracer trace.Tracer, m store.OutboxMessage) (*nats.Msg, trace.Span) {
	destination := jobs.SubjectTemplate(m.Subject) // one span name for every client's queue
	ctx, span := tracer.Start(tracing.FromFields(ctx, m.TraceContext), "send "+destination,
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(
			messaging.System,
			semconv.MessagingOperationTypeSend,
			semconv.MessagingOperationName("send"),
			semconv.MessagingDestinationName(m.Subject),
			semconv.MessagingDestinationTemplate(destination),
			semconv.MessagingMessageID(m.ID.String()),
			semconv.MessagingMessageBodySize(len(m.Payload)),
		))
	msg := &nats.Msg{Subject: m.Subject, Data: m.Payload, Header: nats.Header{}}
	tracing.Propagator().Inject(ctx, messaging.HeaderCarrier(msg.Header))
	return msg, span
}

func endPublication(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
