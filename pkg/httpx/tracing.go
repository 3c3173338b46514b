package httpx

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/doceval/doceval/pkg/tracing"
)

// Trace starts a server span per request, named by method and route template. The API
// is public: a caller's traceparent would choose doceval's trace ids and sampling, so it
// does not become the parent; the new trace links to it instead.
func Trace(tp trace.TracerProvider) echo.MiddlewareFunc {
	tracer := tp.Tracer("github.com/doceval/doceval/pkg/httpx")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			method := knownMethod(req.Method)
			name := method
			if route := c.Path(); route != "" {
				name += " " + route
			}
			opts := []trace.SpanStartOption{
				trace.WithNewRoot(),
				trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(
					semconv.HTTPRequestMethodKey.String(method),
					semconv.HTTPRoute(c.Path()),
					semconv.URLPath(req.URL.Path),
					semconv.UserAgentOriginal(req.UserAgent()),
					semconv.ClientAddress(c.RealIP()),
					attribute.String("doceval.request_id", RequestIDFromContext(req.Context())),
				),
			}
			caller := trace.SpanContextFromContext(tracing.Propagator().Extract(req.Context(), propagation.HeaderCarrier(req.Header)))
			if caller.IsValid() {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: caller}))
			}
			ctx, span := tracer.Start(req.Context(), name, opts...)
			defer span.End()
			c.SetRequest(req.WithContext(ctx))

			err := next(c)
			status := responseStatus(c, err)
			span.SetAttributes(semconv.HTTPResponseStatusCode(status))
			if status >= http.StatusInternalServerError {
				span.SetStatus(codes.Error, http.StatusText(status))
				if err != nil {
					span.RecordError(err)
				}
			}
			return err
		}
	}
}
