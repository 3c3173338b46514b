package tracing_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/tracing"
)

func lookup(vars map[string]string) tracing.LookupEnv {
	return func(key string) (string, bool) {
		v, ok := vars[key]
		return v, ok
	}
}

// startSpan starts (and never ends, so nothing is exported) a span of a provider built
// from vars.
func startSpan(t *testing.T, vars map[string]string) trace.Span {
	t.Helper()
	ctx := context.Background()
	tp, shutdown, err := tracing.New(ctx, "ingest", "1.2.3", lookup(vars))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, shutdown(ctx)) })
	_, span := tp.Tracer("test").Start(ctx, "span")
	return span
}

func TestOffByDefault(t *testing.T) {
	t.Parallel()
	for name, vars := range map[string]map[string]string{
		"no variables":           {},
		"service name only":      {"OTEL_SERVICE_NAME": "x"},
		"sdk disabled":           {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
		"exporter none":          {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"},
		"sdk disabled, any case": {"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.False(t, startSpan(t, vars).IsRecording())
		})
	}
}

func TestOnWithAnEndpoint(t *testing.T) {
	t.Parallel()
	for name, vars := range map[string]map[string]string{
		"endpoint":        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
		"traces endpoint": {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"},
		"exporter otlp":   {"OTEL_TRACES_EXPORTER": "otlp"},
		"grpc":            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		"sdk enabled":     {"OTEL_SDK_DISABLED": "false", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			span := startSpan(t, vars)
			require.True(t, span.IsRecording())
			res := span.(sdktrace.ReadOnlySpan).Resource()
			service, _ := res.Set().Value("service.name")
			version, _ := res.Set().Value("service.version")
			require.Equal(t, attribute.StringValue("doceval-ingest"), service)
			require.Equal(t, attribute.StringValue("1.2.3"), version)
		})
	}
}

func TestServiceNameFromEnvironment(t *testing.T) {
	t.Parallel()
	span := startSpan(t, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SERVICE_NAME": "doceval-ingest-eu"})
	name, _ := span.(sdktrace.ReadOnlySpan).Resource().Set().Value("service.name")
	require.Equal(t, "doceval-ingest-eu", name.AsString())
}

// A setting the service cannot honour stops it at start rather than losing traces.
func TestUnsupportedSettings(t *testing.T) {
	t.Parallel()
	for _, vars := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift"},
	} {
		_, _, err := tracing.New(context.Background(), "api", "dev", lookup(vars))
		require.Error(t, err, "%v", vars)
	}
}

// Trace context survives the round trip through stored fields; without a span there is
// nothing to store.
func TestFieldsRoundTrip(t *testing.T) {
	t.Parallel()
	require.Nil(t, tracing.Fields(context.Background()))

	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "request")
	defer span.End()
	fields := tracing.Fields(ctx)
	require.Contains(t, fields, "traceparent")

	remote := trace.SpanContextFromContext(tracing.FromFields(context.Background(), fields))
	require.True(t, remote.IsRemote())
	require.Equal(t, span.SpanContext().TraceID(), remote.TraceID())
	require.Equal(t, span.SpanContext().SpanID(), remote.SpanID())
	require.True(t, remote.IsSampled())
}
