// Package logging builds the JSON slog logger every service uses. Records logged with a
// request context carry its request_id, and with a traced context its trace_id and
// span_id, so a log line leads to its trace.
package logging

import (
	"context"
	"io"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// RequestIDFunc extracts a request id from a context ("" when there is none).
type RequestIDFunc func(context.Context) string

// New returns a JSON logger at level, tagged with the service name unless it is empty.
func New(w io.Writer, level slog.Level, service string, requestID RequestIDFunc) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	log := slog.New(&contextHandler{Handler: h, requestID: requestID})
	if service == "" {
		return log
	}
	return log.With("service", service)
}

type contextHandler struct {
	slog.Handler
	requestID RequestIDFunc
}

func (h *contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.requestID != nil {
		if id := h.requestID(ctx); id != "" {
			r.AddAttrs(slog.String("request_id", id))
		}
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h *contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &contextHandler{Handler: h.Handler.WithAttrs(attrs), requestID: h.requestID}
}

func (h *contextHandler) WithGroup(name string) slog.Handler {
	return &contextHandler{Handler: h.Handler.WithGroup(name), requestID: h.requestID}
}
