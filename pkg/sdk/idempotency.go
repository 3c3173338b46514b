package sdk

import (
	"context"
	"net/http"
	"sync"

	"github.com/google/uuid"
)

// withIdempotencyKey returns req carrying an Idempotency-Key when it is a POST: the
// caller's own (WithIdempotencyKey, the generated params, a header set by hand) or else
// newKey(), made once per call, so every retry of the call sends the same key. Other
// methods are returned unchanged.
func withIdempotencyKey(req *http.Request, newKey func() string) *http.Request {
	if req.Method != http.MethodPost || req.Header.Get(HeaderIdempotencyKey) != "" {
		return req
	}
	keyed := new(http.Request)
	*keyed = *req
	keyed.Header = req.Header.Clone() // a RoundTripper must not modify its request
	if keyed.Header == nil {
		keyed.Header = http.Header{}
	}
	keyed.Header.Set(HeaderIdempotencyKey, newKey())
	return keyed
}

// newIdempotencyKey is a random (version 4) UUID.
func newIdempotencyKey() string { return uuid.NewString() }

// callTrace is what the transport learned about the attempts of one call that the
// wrapper around it needs: whether an attempt ended without the service's answer, so
// that it may have been applied although the call went on to retry.
type callTrace struct {
	mu         sync.Mutex
	answerLost bool
}

type callTraceKey struct{}

func withCallTrace(ctx context.Context) (context.Context, *callTrace) {
	trace := &callTrace{}
	return context.WithValue(ctx, callTraceKey{}, trace), trace
}

func callTraceOf(ctx context.Context) *callTrace {
	trace, _ := ctx.Value(callTraceKey{}).(*callTrace)
	return trace
}

func (t *callTrace) markAnswerLost() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.answerLost = true
	t.mu.Unlock()
}

func (t *callTrace) lost() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.answerLost
}
