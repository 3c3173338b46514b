// Package tracing sets up a service's OpenTelemetry traces from the standard OTEL_*
// environment and carries trace context across doceval's asynchronous hops: the
// outbox row, the NATS message headers and the webhook delivery row.
//
// Tracing is off unless an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER=otlp; OTEL_SDK_DISABLED=true
// and OTEL_TRACES_EXPORTER=none turn it off whatever else is set. Off, the provider is a
// no-op: spans cost nothing, and a service writes no trace context of its own (a worker
// still passes on the context that arrived in a message's headers).
package tracing

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// LookupEnv reads one environment variable (os.LookupEnv in the services).
type LookupEnv func(key string) (string, bool)

// Shutdown flushes the spans still buffered and stops the exporter.
type Shutdown func(context.Context) error

// New returns the TracerProvider of service doceval-<service> (OTEL_SERVICE_NAME
// overrides the name) at version. lookup decides whether tracing is on, the protocol
// and the service name; the OTLP exporter, the sampler (OTEL_TRACES_SAMPLER) and the
// batcher (OTEL_BSP_*) read the rest of their settings from the process environment, as
// the OpenTelemetry SDK does. The protocol is OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf (the default) or grpc.
func New(ctx context.Context, service, version string, lookup LookupEnv) (trace.TracerProvider, Shutdown, error) {
	on, err := enabled(lookup)
	if err != nil || !on {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, err
	}
	exporter, err := newExporter(ctx, lookup)
	if err != nil {
		return nil, nil, err
	}
	name := "doceval-" + service
	if v := env(lookup, "OTEL_SERVICE_NAME"); v != "" {
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

// enabled applies the switches of the OpenTelemetry environment specification.
func enabled(lookup LookupEnv) (bool, error) {
	if strings.EqualFold(env(lookup, "OTEL_SDK_DISABLED"), "true") {
		return false, nil
	}
	switch exporter := env(lookup, "OTEL_TRACES_EXPORTER"); exporter {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
		return env(lookup, "OTEL_EXPORTER_OTLP_ENDPOINT") != "" || env(lookup, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: only otlp and none are supported", exporter)
	}
}

func newExporter(ctx context.Context, lookup LookupEnv) (sdktrace.SpanExporter, error) {
	protocol := env(lookup, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = env(lookup, "OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch protocol {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: only http/protobuf and grpc are supported", protocol)
	}
}

func env(lookup LookupEnv, key string) string {
	v, _ := lookup(key)
	return strings.TrimSpace(v)
}

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
