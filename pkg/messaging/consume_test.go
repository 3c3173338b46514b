package messaging_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
	"github.com/doceval/doceval/pkg/testkit/natstest"
	"github.com/doceval/doceval/pkg/tracing"
)

type testBundle struct {
	js   jetstream.JetStream
	spec messaging.ConsumerSpec
}

// jetStream is a JetStream server with doceval's streams.
func jetStream(t *testing.T) jetstream.JetStream {
	t.Helper()
	js := natstest.JetStream(t)
	require.NoError(t, messaging.EnsureStreams(context.Background(), js, 1, slog.New(slog.DiscardHandler)))
	return js
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	return &testBundle{js: jetStream(t), spec: messaging.ConsumerSpec{
		Stream: messaging.JobsStream, Durable: "test", FilterSubject: jobs.IngestSubject,
		AckWait: 10 * time.Second, MaxDeliver: -1, Concurrency: 1,
	}}
}

// publish sends body on the ingest subject, with header when given.
func (b *testBundle) publish(t *testing.T, body string, header nats.Header) {
	t.Helper()
	_, err := b.js.PublishMsg(context.Background(), &nats.Msg{Subject: jobs.IngestSubject, Data: []byte(body), Header: header},
		jetstream.WithMsgID(body))
	require.NoError(t, err)
}

// consume runs Consume until the test ends.
func (b *testBundle) consume(t *testing.T, handler messaging.Handler, opts ...messaging.ConsumeOption) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- messaging.Consume(ctx, b.js, b.spec, handler, slog.New(slog.DiscardHandler), opts...) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// Every settled message is counted by outcome, a redelivery is counted as such, every
// handler run is timed, and the consumer's backlog is read from JetStream per scrape.
func TestConsumeMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	reg := prometheus.NewRegistry()
	metrics := messaging.NewMetrics(reg)
	gauge := func(name string) float64 {
		v, ok := metricstest.Value(t, reg, name, "stream", messaging.JobsStream, "consumer", "test")
		require.True(t, ok, "%s is not reported", name)
		return v
	}

	release := make(chan struct{})
	var mu sync.Mutex
	runs := map[string]int{}
	handler := func(_ context.Context, msg jetstream.Msg) error {
		body := string(msg.Data())
		mu.Lock()
		runs[body]++
		n := runs[body]
		mu.Unlock()
		switch {
		case body == "first":
			<-release
		case body == "flaky" && n == 1:
			return errors.New("database unavailable")
		case body == "poison":
			return fmt.Errorf("undecodable: %w", messaging.ErrPermanent)
		}
		return nil
	}
	for _, body := range []string{"first", "flaky", "poison"} {
		b.publish(t, body, nil)
	}
	b.consume(t, handler, messaging.WithMetrics(metrics))
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(free) // before Consume stops: it waits for the held message

	// Nothing is acknowledged while the first message is held: all three are waiting
	// or delivered.
	eventually(t, "the first message is in work", func() bool { mu.Lock(); defer mu.Unlock(); return runs["first"] == 1 })
	require.Equal(t, 3.0, gauge("doceval_jetstream_consumer_pending_messages")+gauge("doceval_jetstream_consumer_ack_pending_messages"))
	free()

	const settled = "doceval_jetstream_messages_total"
	metricstest.WaitFor(t, reg, 2, settled, "consumer", "test", "outcome", "ack")
	metricstest.WaitFor(t, reg, 1, settled, "consumer", "test", "outcome", "term")
	metricstest.WaitFor(t, reg, 1, settled, "consumer", "test", "outcome", "retry")
	metricstest.WaitFor(t, reg, 1, "doceval_jetstream_redeliveries_total", "consumer", "test")
	metricstest.WaitFor(t, reg, 4, "doceval_jetstream_handler_duration_seconds", "consumer", "test")
	eventually(t, "the backlog is empty", func() bool {
		return gauge("doceval_jetstream_consumer_pending_messages") == 0 && gauge("doceval_jetstream_consumer_ack_pending_messages") == 0
	})
	require.Equal(t, 0.0, gauge("doceval_jetstream_consumer_redelivered_messages"))
}

// The handler works inside a consumer span that continues the trace of the message's
// headers; without a tracer it still receives that trace context.
func TestConsumeContinuesTheTrace(t *testing.T) {
	t.Parallel()
	producer := sdktrace.NewTracerProvider()
	parentCtx, parent := producer.Tracer("test").Start(context.Background(), "send")
	header := nats.Header{}
	tracing.Propagator().Inject(parentCtx, messaging.HeaderCarrier(header))
	parent.End()

	for name, traced := range map[string]bool{"traced": true, "not traced": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			recorder := tracetest.NewSpanRecorder()
			var opts []messaging.ConsumeOption
			if traced {
				opts = append(opts, messaging.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))))
			}
			seen := make(chan trace.SpanContext, 1)
			b.publish(t, "job", header)
			b.consume(t, func(ctx context.Context, _ jetstream.Msg) error {
				seen <- trace.SpanContextFromContext(ctx)
				return nil
			}, opts...)

			var inHandler trace.SpanContext
			select {
			case inHandler = <-seen:
			case <-time.After(15 * time.Second):
				t.Fatal("the message was not handled")
			}
			require.Equal(t, parent.SpanContext().TraceID(), inHandler.TraceID())
			if !traced {
				require.Equal(t, parent.SpanContext().SpanID(), inHandler.SpanID(), "the remote context passes through")
				return
			}
			eventually(t, "the consumer span ended", func() bool { return len(recorder.Ended()) == 1 })
			span := recorder.Ended()[0]
			require.Equal(t, "process "+jobs.IngestSubject, span.Name())
			require.Equal(t, trace.SpanKindConsumer, span.SpanKind())
			require.Equal(t, inHandler.SpanID(), span.SpanContext().SpanID())
			require.Equal(t, parent.SpanContext().SpanID(), span.Parent().SpanID())
			attrs := map[string]string{}
			for _, kv := range span.Attributes() {
				attrs[string(kv.Key)] = kv.Value.String()
			}
			require.Equal(t, "nats", attrs["messaging.system"])
			require.Equal(t, jobs.IngestSubject, attrs["messaging.destination.name"])
			require.Equal(t, "job", attrs["messaging.message.id"])
			require.Equal(t, "test", attrs["messaging.consumer.group.name"])
			require.Equal(t, "1", attrs["messaging.nats.message.delivery_count"])
			require.Equal(t, "ack", attrs["doceval.messaging.outcome"])
		})
	}
}

// On shutdown a consumer finishes the message in hand and gives back the ones it had
// fetched but not started, at once, instead of working through its whole buffer: the
// grace period a platform sizes for one round of handlers holds.
func TestConsumeShutdownGivesBackFetchedMessages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for i := range 4 {
		b.publish(t, fmt.Sprintf("job-%d", i), nil)
	}
	started, release := make(chan string, 4), make(chan struct{})
	var handled sync.Map
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- messaging.Consume(ctx, b.js, b.spec, func(_ context.Context, msg jetstream.Msg) error {
			handled.Store(string(msg.Data()), true)
			started <- string(msg.Data())
			<-release
			return nil
		}, slog.New(slog.DiscardHandler))
	}()
	first := <-started
	time.Sleep(200 * time.Millisecond) // the rest of the pull batch reaches the client
	cancel()
	time.Sleep(200 * time.Millisecond)
	close(release)
	require.NoError(t, <-done)
	n := 0
	handled.Range(func(any, any) bool { n++; return true })
	require.Equal(t, 1, n, "only the message in hand (%s) is handled during shutdown", first)

	// The others are due again now, not after the ack wait (10 s here).
	rest := map[string]bool{}
	var mu sync.Mutex
	b.consume(t, func(_ context.Context, msg jetstream.Msg) error {
		mu.Lock()
		defer mu.Unlock()
		rest[string(msg.Data())] = true
		return nil
	})
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(rest) == 3 && !rest[first]
	}, 5*time.Second, 50*time.Millisecond)
}
