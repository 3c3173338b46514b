package dispatch_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/store"
	"github.com/doceval/doceval/pkg/testkit/metricstest"
)

// Every settled delivery is counted by outcome and every HTTP attempt timed by its
// outcome; each attempt is a client span in the trace of the event's fan-out, and no
// trace context reaches the partner's endpoint.
func TestDeliveryMetricsAndSpans(t *testing.T) {
	f := newFixture(t, time.Minute)
	reg := prometheus.NewRegistry()
	recorder := tracetest.NewSpanRecorder()
	f.d.Metrics = dispatch.NewMetrics(reg)
	f.d.Tracer = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	ok, failing := &receiver{status: 200}, &receiver{status: 503}
	for _, rec := range []*receiver{ok, failing} {
		srv := httptest.NewServer(rec)
		t.Cleanup(srv.Close)
		f.endpoint(srv.URL, "whsec_x", nil)
	}

	// The event is fanned out inside a traced consumer, as the dispatcher's does.
	fanOutCtx, fanOut := sdktrace.NewTracerProvider().Tracer("test").Start(f.ctx, "process doceval.events.file.ready")
	var ev uuid.UUID
	require.NoError(t, f.st.InTx(f.ctx, func(tx *store.Tx) error {
		env, err := tx.Emit(f.ctx, events.Draft{APIClientID: f.client, Type: events.FileReady, Data: map[string]string{"k": "v"}})
		if err == nil {
			ev, err = events.ParseID(env.ID)
		}
		return err
	}))
	_, err := f.st.FanOut(fanOutCtx, ev)
	require.NoError(t, err)
	fanOut.End()

	require.Equal(t, 2, f.run())
	f.clock.Advance(time.Minute)
	require.Equal(t, 1, f.run()) // the failing endpoint's last attempt

	const deliveries, attempts = "doceval_webhook_deliveries_total", "doceval_webhook_attempt_duration_seconds"
	for outcome, want := range map[string]float64{"delivered": 1, "retry_scheduled": 1, "abandoned": 1, "endpoint_deleted": 0} {
		got, reported := metricstest.Value(t, reg, deliveries, "outcome", outcome)
		require.True(t, reported, outcome)
		require.Equal(t, want, got, outcome)
	}
	metricstest.WaitFor(t, reg, 1, attempts, "outcome", "succeeded")
	metricstest.WaitFor(t, reg, 2, attempts, "outcome", "http_error")

	spans := recorder.Ended()
	require.Len(t, spans, 3)
	failed := 0
	for _, span := range spans {
		require.Equal(t, "POST", span.Name())
		require.Equal(t, trace.SpanKindClient, span.SpanKind())
		require.Equal(t, fanOut.SpanContext().TraceID(), span.SpanContext().TraceID())
		require.Equal(t, fanOut.SpanContext().SpanID(), span.Parent().SpanID())
		if span.Status().Code == codes.Error {
			failed++
		}
	}
	require.Equal(t, 2, failed, "the 503 attempts are errors")
	for _, rec := range []*receiver{ok, failing} {
		for _, got := range rec.got {
			require.Empty(t, got.header.Get("traceparent"), "trace context leaked to a partner")
			require.Empty(t, got.header.Get("baggage"))
		}
	}
}
