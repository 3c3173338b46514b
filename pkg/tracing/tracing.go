// Package tracing sets up a service's OpenTelemetry traces from the standard OTEL_*
// environment and carries trace context across doceval's asynchronous hops: the
// outbox row, the NATS message headers and the webhook delivery row.
//
// The exporter is chosen by go.opentelemetry.io/contrib/exporters/autoexport, as the
// OpenTelemetry environment specification says: OTEL_TRACES_EXPORTER (otlp, console or
// none) and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL
// (http/protobuf, the default, or grpc). One rule is doceval's own: with neither
// OTEL_TRACES_EXPORTER nor an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, tracing is off, where the SDK would send to
// a collector on localhost. OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn
// it off whatever else is set. Off, the provider is a no-op: spans cost nothing, and a
// service writes no trace context of its own (a worker still passes on the context
// that arrived in a message's headers).
package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Shutdown flushes the spans still buffered and stops the exporter.
type Shutdown func(context.Context) error

// New returns the TracerProvider of service doceval-<service> (OTEL_SERVICE_NAME
// overrides the name) at version, configured from the process environment: the
// exporter by autoexport, the sampler (OTEL_TRACES_SAMPLER), the batcher (OTEL_BSP_*)
// and the resource (OTEL_RESOURCE_ATTRIBUTES) by the OpenTelemetry SDK. A value the
// service cannot honour (an unknown exporter or protocol) is an error, so the service
// stops at start rather than losing its traces.
func New(ctx context.Context, service, version string) (trace.TracerProvider, Shutdown, error) {
	off := func(context.Context) error { return nil }
	if !requested() {
		return noop.NewTracerProvider(), off, nil
	}
	exporter, err := autoexport.NewSpanExporter(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("tracing exporter: %w", err)
	}
	if autoexport.IsNoneSpanExporter(exporter) {
		return noop.NewTracerProvider(), off, nil
	}
	name := "doceval-" + service
	if v := env("OTEL_SERVICE_NAME"); v != "" {
		name = v
	}
	// OTEL_RESOURCE_ATTRIBUTES first: the service's name and version win over it.
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName(name), semconv.ServiceVersion(version)))
	if err != nil {
		_ = exporter.Shutdown(ctx)
		return nil, nil, fmt.Errorf("tracing resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

// requested says whether the environment asks for traces at all: not with
// OTEL_SDK_DISABLED=true, and only once an exporter or an OTLP endpoint is named.
func requested() bool {
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	return env("OTEL_TRACES_EXPORTER") != "" || env("OTEL_EXPORTER_OTLP_ENDPOINT") != "" ||
		env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

func env(key string) string { return strings.TrimSpace(os.Getenv(key)) }

// propagator is the W3C trace context and baggage: the format of trace context in
// HTTP headers, outbox and delivery rows, and NATS message headers.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Propagator returns the W3C trace context and baggage propagator.
func Propagator() propagation.TextMapPropagator { return propagator }

// Fields returns the trace context of ctx as text fields (traceparent, tracestate,
// baggage), or nil when ctx carries none (tracing off).
func Fields(ctx context.Context) map[string]string {
	carrier := propagation.MapCarrier{}
	propagator.Inject(ctx, carrier)
	if len(carrier) == 0 {
		return nil
	}
	return carrier
}

// FromFields returns ctx carrying the trace context stored as fields.
func FromFields(ctx context.Context, fields map[string]string) context.Context {
	if len(fields) == 0 {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier(fields))
}
