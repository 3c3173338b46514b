package outbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/outbox"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/dbtest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
	"github.com/doceval/doceval/pkg/tracing"
)

type testBundle struct {
	store *store.Store
	js    jetstream.JetStream
	log   *slog.Logger
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	st := store.New(dbtest.New(t))
	js := natstest.JetStream(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	require.NoError(t, messaging.EnsureStreams(context.Background(), js, 1, log))
	return &testBundle{store: st, js: js, log: log}
}

// enqueueJobs commits n outbox rows, one transaction each, and returns their ids.
func enqueueJobs(t *testing.T, st *store.Store, n int) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for range n {
		id := uuid.New()
		err := st.InTx(context.Background(), func(tx *store.Tx) error {
			return tx.Enqueue(context.Background(), jobs.PurgeJob{SubmissionID: id})
		})
		require.NoError(t, err)
		ids[id.String()] = true
	}
	return ids
}

// received reads every message on the jobs stream and returns the submission ids in them,
// with how often each arrived.
func received(t *testing.T, js jetstream.JetStream, want int) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, messaging.JobsStream, jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	got := map[string]int{}
	for total := 0; total < want; total++ {
		msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		require.NoError(t, err, "after %d messages", total)
		var job jobs.PurgeJob
		require.NoError(t, jsonUnmarshal(msg.Data(), &job))
		got[job.SubmissionID.String()]++
	}
	// Nothing beyond the expected messages.
	_, err = cons.Next(jetstream.FetchMaxWait(300 * time.Millisecond))
	require.Error(t, err, "a message beyond the %d expected arrived", want)
	return got
}

func TestRelayPublishesEveryRowOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	want := enqueueJobs(t, b.store, 25)

	relay := &outbox.Relay{Store: b.store, JS: b.js, Log: b.log, BatchSize: 10}
	require.NoError(t, relay.Drain(context.Background(), 10))

	got := received(t, b.js, len(want))
	require.Len(t, got, len(want))
	for id, n := range got {
		require.True(t, want[id], "unexpected message %s", id)
		require.Equal(t, 1, n, "message %s delivered %d times", id, n)
	}
	pending, _, err := b.store.OutboxStats(context.Background())
	require.NoError(t, err)
	require.Zero(t, pending, "published rows must leave the outbox")
}

// A relay that dies after JetStream acknowledged a batch but before it deleted the rows
// leaves them in the outbox; the next relay publishes them again with the same message
// ids, and JetStream drops the copies: consumers see every row exactly once.
func TestRelayKilledBetweenPublishAndDelete(t *testing.T) {
	t.Parallel()
	b := setup(t)
	want := enqueueJobs(t, b.store, 12)

	killed := errors.New("relay killed")
	dying := &outbox.Relay{Store: b.store, JS: b.js, Log: b.log,
		BeforeDelete: func(context.Context) error { return killed }}
	require.ErrorIs(t, dying.Drain(context.Background(), 5), killed)

	pending, _, err := b.store.OutboxStats(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 12, pending, "the killed relay must not have deleted its batch")

	restarted := &outbox.Relay{Store: b.store, JS: b.js, Log: b.log}
	require.NoError(t, restarted.Drain(context.Background(), 5))

	got := received(t, b.js, len(want))
	for id := range want {
		require.Equal(t, 1, got[id], "message %s", id)
	}
	pending, _, err = b.store.OutboxStats(context.Background())
	require.NoError(t, err)
	require.Zero(t, pending)
}

// Run wakes on the insert notification, well before its poll interval.
func TestRelayRunWakesOnNotify(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	relay := &outbox.Relay{Store: b.store, JS: b.js, Log: b.log, PollInterval: time.Hour}
	done := make(chan error, 1)
	go func() { done <- relay.Run(ctx) }()
	// Let the listener subscribe before the insert, so the wake-up can only come from it.
	time.Sleep(300 * time.Millisecond)

	var emitted events.Envelope
	err := b.store.InTx(ctx, func(tx *store.Tx) error {
		client, _, _, err := b.store.CreateClient(ctx, "relay-test", nil)
		if err != nil {
			return err
		}
		emitted, err = tx.Emit(ctx, events.Draft{APIClientID: client.ID, Type: events.FileReady, Data: map[string]any{"upload": map[string]any{}}})
		return err
	})
	require.NoError(t, err)

	cons, err := b.js.OrderedConsumer(ctx, messaging.EventsStream, jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	require.NoError(t, err)
	require.Equal(t, jobs.EventSubjectPrefix+string(events.FileReady), msg.Subject())
	var ev jobs.EventPublished
	require.NoError(t, jsonUnmarshal(msg.Data(), &ev))
	require.Equal(t, emitted.ID, events.FormatID(ev.EventID))

	cancel()
	require.NoError(t, <-done)
}

func jsonUnmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %q: %w", b, err)
	}
	return nil
}

// A row written inside a traced transaction is published with a producer span that
// continues its trace, and the span's context travels in the NATS headers next to the
// message id; a row written without a trace carries no trace headers.
func TestRelayPublishesTraceContext(t *testing.T) {
	t.Parallel()
	b := setup(t)
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	reqCtx, request := tp.Tracer("test").Start(context.Background(), "POST /v1/submissions/:submission_id/files")
	traced, untraced := uuid.New(), uuid.New()
	for ctx, id := range map[context.Context]uuid.UUID{reqCtx: traced, context.Background(): untraced} {
		require.NoError(t, b.store.InTx(ctx, func(tx *store.Tx) error {
			return tx.Enqueue(ctx, jobs.PurgeJob{SubmissionID: id})
		}))
	}
	request.End()

	relay := &outbox.Relay{Store: b.store, JS: b.js, Log: b.log, Tracer: tp}
	require.NoError(t, relay.Drain(context.Background(), 10))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := b.js.OrderedConsumer(ctx, messaging.JobsStream, jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	headers := map[uuid.UUID]nats.Header{}
	for range 2 {
		msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		require.NoError(t, err)
		var job jobs.PurgeJob
		require.NoError(t, jsonUnmarshal(msg.Data(), &job))
		headers[job.SubmissionID] = msg.Headers()
		require.NotEmpty(t, msg.Headers().Get(jetstream.MsgIDHeader), "the message id stays")
	}

	var sends []sdktrace.ReadOnlySpan
	for _, s := range recorder.Ended() {
		if s.SpanKind() == trace.SpanKindProducer {
			sends = append(sends, s)
		}
	}
	require.Len(t, sends, 2, "one producer span per message")
	var send sdktrace.ReadOnlySpan
	for _, s := range sends {
		if s.Parent().IsValid() {
			send = s
		}
	}
	require.NotNil(t, send, "the traced row's span continues its trace")
	require.Equal(t, "send "+jobs.PurgeSubject, send.Name())
	require.Equal(t, request.SpanContext().TraceID(), send.SpanContext().TraceID())
	require.Equal(t, request.SpanContext().SpanID(), send.Parent().SpanID())

	published := trace.SpanContextFromContext(tracing.Propagator().Extract(context.Background(), messaging.HeaderCarrier(headers[traced])))
	require.Equal(t, send.SpanContext().TraceID(), published.TraceID())
	require.Equal(t, send.SpanContext().SpanID(), published.SpanID(), "the consumer becomes a child of the send span")

	// The untraced row's own send span is a root; without a tracer nothing would be sent.
	require.NotEqual(t, request.SpanContext().TraceID(), trace.SpanContextFromContext(
		tracing.Propagator().Extract(context.Background(), messaging.HeaderCarrier(headers[untraced]))).TraceID())
}

// With tracing off in the relay, the stored trace context is published unchanged.
func TestRelayPassesTraceContextThrough(t *testing.T) {
	t.Parallel()
	b := setup(t)
	reqCtx, request := sdktrace.NewTracerProvider().Tracer("test").Start(context.Background(), "request")
	defer request.End()
	require.NoError(t, b.store.InTx(reqCtx, func(tx *store.Tx) error {
		return tx.Enqueue(reqCtx, jobs.PurgeJob{SubmissionID: uuid.New()})
	}))
	require.NoError(t, (&outbox.Relay{Store: b.store, JS: b.js, Log: b.log}).Drain(context.Background(), 10))

	cons, err := b.js.OrderedConsumer(context.Background(), messaging.JobsStream, jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	require.NoError(t, err)
	published := trace.SpanContextFromContext(tracing.Propagator().Extract(context.Background(), messaging.HeaderCarrier(msg.Headers())))
	require.Equal(t, request.SpanContext().TraceID(), published.TraceID())
	require.Equal(t, request.SpanContext().SpanID(), published.SpanID())
}
