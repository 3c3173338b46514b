package sdk

import (
	"context"
	"log/slog"
	"time"
)

// RetryEvent describes a failed attempt that the SDK is about to retry.
type RetryEvent struct {
	Method string
	// Path is the request's URL path, without the query.
	Path string
	// Attempt is the attempt that failed: 1 for the first.
	Attempt int
	// StatusCode is the answer's status, 0 when no answer came (see Err).
	StatusCode int
	// Code is the answer's error code, empty when the body was not the error envelope.
	Code string
	// Err is the network error when no answer came.
	Err error
	// Wait is how long the SDK waits before the next attempt: the answer's retry-after,
	// else the backoff.
	Wait time.Duration
	// IdempotencyKey is the key the retry sends again (POST only).
	IdempotencyKey string
}

// WithRetryHook calls fn before every retry, on the goroutine making the call. It must
// not block for long: the call waits for it. Several hooks (and WithLogger) all run.
func WithRetryHook(fn func(RetryEvent)) Option {
	return func(c *config) {
		c.retryHooks = append(c.retryHooks, func(_ context.Context, e RetryEvent) { fn(e) })
	}
}

// WithLogger logs every retry on l at level Info, with the call's context, and the
// attributes method, path, attempt, status or error, code, wait and idempotency_key.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.retryHooks = append(c.retryHooks, logRetry(l)) }
}

func logRetry(l *slog.Logger) func(context.Context, RetryEvent) {
	return func(ctx context.Context, e RetryEvent) {
		attrs := []slog.Attr{
			slog.String("method", e.Method), slog.String("path", e.Path), slog.Int("attempt", e.Attempt),
			slog.Duration("wait", e.Wait),
		}
		if e.Err != nil {
			attrs = append(attrs, slog.String("error", e.Err.Error()))
		} else {
			attrs = append(attrs, slog.Int("status", e.StatusCode))
		}
		if e.Code != "" {
			attrs = append(attrs, slog.String("code", e.Code))
		}
		if e.IdempotencyKey != "" {
			attrs = append(attrs, slog.String("idempotency_key", e.IdempotencyKey))
		}
		l.LogAttrs(ctx, slog.LevelInfo, "doceval: retrying", attrs...)
	}
}
