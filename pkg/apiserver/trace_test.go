package apiserver_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/engine"
	"github.com/doceval/doceval/pkg/evaluator"
	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/messaging"
	"github.com/doceval/doceval/pkg/outbox"
	"github.com/doceval/doceval/pkg/testkit/natstest"
)

func withTracerProvider(tp trace.TracerProvider) envOption {
	return func(d *apiserver.Deps) { d.TracerProvider = tp }
}

// spans is what one in-memory TracerProvider recorded, shared by the API and the workers
// of a test as if each exported to the same collector.
type spans struct{ *tracetest.SpanRecorder }

// find waits for the ended span named name of kind and returns it.
func (s spans) find(t *testing.T, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, span := range s.Ended() {
			if span.Name() == name && span.SpanKind() == kind {
				return span
			}
		}
	}
	t.Fatalf("no %s span %q ended", kind, name)
	return nil
}

// byID returns the ended span with id.
func (s spans) byID(id trace.SpanID) sdktrace.ReadOnlySpan {
	for _, span := range s.Ended() {
		if span.SpanContext().SpanID() == id {
			return span
		}
	}
	return nil
}

// One trace follows an evaluation from the API request that starts it, through the
// outbox and JetStream into the evaluator's consumer, and on through the
// evaluation.completed event's outbox row into the dispatcher's fan-out and its webhook
// POST.
func TestTraceFollowsAnEvaluation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	recorder := spans{tracetest.NewSpanRecorder()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	log := slog.New(slog.DiscardHandler)
	e := newEnv(t, withTracerProvider(tp))
	_, key := e.newClient()
	c := e.client(key)
	var hooks atomic.Int32
	partner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hooks.Add(1) }))
	defer partner.Close()
	hook, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{
		Url: partner.URL, Events: &[]client.EventType{"evaluation.completed"},
	})
	expect(t, err, hook.StatusCode(), hook.Body, 201)
	e.queuedEvaluation(c, "traced")
	request := recorder.find(t, "POST /v1/submissions/:submission_id/evaluations", trace.SpanKindServer)

	// The relay, the evaluator's consumer and the dispatcher's fan-out consumer, on a
	// real JetStream, each traced.
	js := natstest.JetStream(t)
	require.NoError(t, messaging.EnsureStreams(ctx, js, 1, log))
	traced := messaging.WithTracerProvider(tp)
	relay := &outbox.Relay{Store: e.store, JS: js, Log: log, Tracer: tp}
	worker := &evaluator.Worker{Store: e.store, Engine: engine.NewWithModel(nil, log), Log: log, Cfg: evaluator.Config{
		Concurrency: 1, MaxAttempts: 3, Timeout: time.Minute, ProgressInterval: time.Second, QueueTimeout: time.Hour,
	}}
	dispatcher := &dispatch.Dispatcher{Store: e.store, Secrets: e.secrets, Log: log, Timeout: 5 * time.Second, Tracer: tp, AllowPrivate: true}
	done := make(chan error, 3)
	go func() { done <- relay.Run(ctx) }()
	go func() {
		done <- messaging.ConsumeFair(ctx, js, evaluator.EvaluateQueue(worker.Cfg), worker.HandleEvaluate, log, traced)
	}()
	go func() {
		done <- messaging.Consume(ctx, js, messaging.ConsumerSpec{
			Stream: messaging.EventsStream, Durable: "dispatcher", FilterSubject: jobs.EventSubjectPrefix + ">", AckWait: time.Minute, MaxDeliver: -1,
		}, dispatcher.HandleEvent, log, traced)
	}()
	t.Cleanup(func() {
		cancel()
		for range 3 {
			require.NoError(t, <-done)
		}
	})

	evaluate := recorder.find(t, "process "+jobs.QueueSubjects(jobs.EvaluateQueue), trace.SpanKindConsumer)
	require.Equal(t, request.SpanContext().TraceID(), evaluate.SpanContext().TraceID(), "the worker continues the request's trace")
	send := recorder.byID(evaluate.Parent().SpanID())
	require.NotNil(t, send, "the consumer's parent is a span of the trace")
	require.Equal(t, trace.SpanKindProducer, send.SpanKind())
	require.Equal(t, request.SpanContext().SpanID(), send.Parent().SpanID(), "the relay's send span is the request's child")

	// The event the worker emitted carries the same trace to the dispatcher, and from
	// the fan-out into the webhook attempt.
	fanOut := recorder.find(t, "process "+jobs.EventSubjectPrefix+"evaluation.completed", trace.SpanKindConsumer)
	require.Equal(t, request.SpanContext().TraceID(), fanOut.SpanContext().TraceID())
	n, err := dispatcher.RunOnce(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	post := recorder.find(t, "POST", trace.SpanKindClient)
	require.Equal(t, request.SpanContext().TraceID(), post.SpanContext().TraceID())
	require.Equal(t, fanOut.SpanContext().SpanID(), post.Parent().SpanID())
	require.EqualValues(t, 1, hooks.Load())
}

// The API is public: a caller's traceparent is linked, never the parent of the request's
// span, so callers cannot choose doceval's trace ids or sampling.
func TestCallerTraceIsLinked(t *testing.T) {
	t.Parallel()
	recorder := spans{tracetest.NewSpanRecorder()}
	e := newEnv(t, withTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))))
	_, key := e.newClient()
	const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	res, err := e.client(key).ListTemplatesWithResponse(context.Background(), nil, func(_ context.Context, req *http.Request) error {
		req.Header.Set("traceparent", traceparent)
		return nil
	})
	expect(t, err, res.StatusCode(), res.Body, 200)

	span := recorder.find(t, "GET /v1/templates", trace.SpanKindServer)
	require.False(t, span.Parent().IsValid(), "a new root")
	require.NotEqual(t, "0af7651916cd43dd8448eb211c80319c", span.SpanContext().TraceID().String())
	require.Len(t, span.Links(), 1)
	require.Equal(t, "0af7651916cd43dd8448eb211c80319c", span.Links()[0].SpanContext.TraceID().String())
	attrs := map[string]string{}
	for _, kv := range span.Attributes() {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	require.Equal(t, "/v1/templates", attrs["http.route"])
	require.Equal(t, "200", attrs["http.response.status_code"])
	require.Equal(t, res.HTTPResponse.Header.Get("x-request-id"), attrs["doceval.request_id"])
}
