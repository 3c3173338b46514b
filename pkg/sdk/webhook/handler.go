package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// DefaultMaxBodyBytes bounds a delivery's body; an evaluation.completed event carries
// the whole result, so this is generous.
const DefaultMaxBodyBytes = 8 << 20

// HandlerOption tunes Handler.
type HandlerOption func(*handler)

// WithTolerance replaces DefaultTolerance.
func WithTolerance(d time.Duration) HandlerOption { return func(h *handler) { h.tolerance = d } }

// WithMaxBodyBytes replaces DefaultMaxBodyBytes; larger bodies answer 413.
func WithMaxBodyBytes(n int64) HandlerOption { return func(h *handler) { h.maxBody = n } }

// WithClock replaces time.Now for the timestamp check (tests).
func WithClock(now func() time.Time) HandlerOption { return func(h *handler) { h.now = now } }

// Handler receives deliveries: it reads the raw body (bounded), verifies its signature
// with secrets under either scheme (VerifyRequest; 400 when it fails), decodes the
// envelope (400 when it is not one), skips an event id the store has already seen (200),
// and calls fn. fn's error answers 500 and releases the claim, so the service retries the
// delivery; success answers 200. The service waits 30 s for an answer, so fn should hand
// long work to a queue and return. store may be nil to turn deduplication off.
func Handler(secrets []string, store DedupStore, fn func(context.Context, Event) error, opts ...HandlerOption) http.Handler {
	h := &handler{secrets: secrets, store: store, fn: fn, maxBody: DefaultMaxBodyBytes, now: time.Now}
	for _, opt := range opts {
		opt(h)
	}
	return h
}

type handler struct {
	secrets   []string
	store     DedupStore
	fn        func(context.Context, Event) error
	tolerance time.Duration
	maxBody   int64
	now       func() time.Time
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	if err := VerifyRequest(r.Header, body, h.secrets, h.tolerance, h.now()); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	event, err := ParseEvent(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	if h.store != nil {
		claimed, err := h.store.Claim(ctx, event.ID)
		if err != nil {
			http.Error(w, "deduplication store unavailable", http.StatusInternalServerError)
			return
		}
		if !claimed {
			w.WriteHeader(http.StatusOK) // a duplicate: acknowledge, do nothing
			return
		}
	}
	if err := h.fn(ctx, event); err != nil {
		if h.store != nil {
			// Best effort: if the release fails too, the retry is taken for a duplicate
			// until the claim expires.
			_ = h.store.Release(context.WithoutCancel(ctx), event.ID)
		}
		http.Error(w, "handler failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}
