package messaging

import (
	"context"
	"maps"
	"slices"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/jobs"
	"github.com/doceval/doceval/pkg/tracing"
)

const instrumentationName = "github.com/doceval/doceval/pkg/messaging"

// System is the messaging.system of doceval's spans.
var System = semconv.MessagingSystemKey.String("nats")

// deliveryCountKey is the span attribute of a message's delivery count.
const deliveryCountKey = attribute.Key("messaging.nats.message.delivery_count")

// HeaderCarrier adapts NATS message headers to the OpenTelemetry propagators. NATS
// header keys are case-sensitive; the W3C propagators use lower case on both ends.
type HeaderCarrier nats.Header

// Get returns the first value of key.
func (h HeaderCarrier) Get(key string) string { return nats.Header(h).Get(key) }

// Set sets key to value.
func (h HeaderCarrier) Set(key, value string) { nats.Header(h).Set(key, value) }

// Keys lists the header keys.
func (h HeaderCarrier) Keys() []string { return slices.Collect(maps.Keys(h)) }

// startSpan starts the consumer span of one message, a child of the trace context its
// headers carry (the outbox row's, through the relay).
func (c *consumer) startSpan(ctx context.Context, msg jetstream.Msg, delivered uint64) (context.Context, trace.Span) {
	ctx = tracing.Propagator().Extract(ctx, HeaderCarrier(msg.Headers()))
	// A per-client queue's spans are named after its template, one name for all clients.
	destination := jobs.SubjectTemplate(msg.Subject())
	return c.tracer.Start(ctx, "process "+destination,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			System,
			semconv.MessagingOperationTypeProcess,
			semconv.MessagingOperationName("process"),
			semconv.MessagingDestinationName(msg.Subject()),
			semconv.MessagingDestinationTemplate(destination),
			semconv.MessagingConsumerGroupName(c.spec.Durable),
			semconv.MessagingMessageID(msg.Headers().Get(jetstream.MsgIDHeader)),
			semconv.MessagingMessageBodySize(len(msg.Data())),
			deliveryCountKey.Int64(int64(delivered)),
		))
}

// endSpan records how a message was settled.
func endSpan(span trace.Span, outcome string, err error) {
	span.SetAttributes(attribute.String("doceval.messaging.outcome", outcome))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}
