package sdk

import (
	"context"
	"net/http"
	"time"

	"github.com/doceval/doceval/gen/client"
)

// RequestOption configures one call of a Client method, for example
// c.CreateCheck(ctx, req, sdk.WithIdempotencyKey(orderID)).
type RequestOption func(*requestConfig)

type requestConfig struct {
	idempotencyKey string
	header         http.Header
	timeout        time.Duration
}

// HeaderIdempotencyKey is the request header that makes a POST safe to retry.
const HeaderIdempotencyKey = "Idempotency-Key"

// HeaderIdempotentReplayed is the response header, "true", on the stored answer to an
// earlier request with the same Idempotency-Key.
const HeaderIdempotentReplayed = "Idempotent-Replayed"

// WithIdempotencyKey sends key (1 to 255 printable ASCII characters) as the call's
// Idempotency-Key instead of the random one the SDK makes for every POST. Use it to
// make a write idempotent across processes, for example keyed by your own order id:
// a repeat with the same key and body gets the first answer back, with
// Idempotent-Replayed: true; the same key with another body is 422
// idempotency_key_reused. Operations other than POST take no key and ignore it.
func WithIdempotencyKey(key string) RequestOption {
	return func(r *requestConfig) { r.idempotencyKey = key }
}

// WithHeader adds a header to the call's requests. It is set after the client's own
// headers, so it can replace them (Authorization to act with another key, for one).
func WithHeader(key, value string) RequestOption {
	return func(r *requestConfig) {
		if r.header == nil {
			r.header = http.Header{}
		}
		r.header.Add(key, value)
	}
}

// WithRequestTimeout bounds this call, its retries and their waits included (for a
// list, each page). It can only shorten the client's own timeout (see WithTimeout).
func WithRequestTimeout(d time.Duration) RequestOption {
	return func(r *requestConfig) { r.timeout = d }
}

func newRequestConfig(opts []RequestOption) requestConfig {
	var r requestConfig
	for _, opt := range opts {
		opt(&r)
	}
	return r
}

// bind returns ctx bounded by the timeout and the editors that set the headers.
func (r requestConfig) bind(ctx context.Context) (context.Context, context.CancelFunc, []client.RequestEditorFn) {
	cancel := context.CancelFunc(func() {})
	if r.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
	}
	if r.idempotencyKey == "" && len(r.header) == 0 {
		return ctx, cancel, nil
	}
	edit := func(_ context.Context, req *http.Request) error {
		for k, vs := range r.header {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		if r.idempotencyKey != "" && req.Method == http.MethodPost {
			req.Header.Set(HeaderIdempotencyKey, r.idempotencyKey)
		}
		return nil
	}
	return ctx, cancel, []client.RequestEditorFn{edit}
}

// send is one call of a generated ClientInterface method with the call's options,
// decoded into a *T.
func send[T any](ctx context.Context, opts []RequestOption, do func(context.Context, ...client.RequestEditorFn) (*http.Response, error)) (*T, error) {
	ctx, cancel, editors := newRequestConfig(opts).bind(ctx)
	defer cancel()
	return receive[T](do(ctx, editors...))
}

// sendDelete is one call of a delete operation. gone recognizes the answer that a
// repeat of an applied delete gets (404 not_found, or 409
// partner_data_purge_in_progress for a submission): after an attempt whose answer was
// lost, that answer means the resource is gone, so the call succeeds.
func sendDelete(ctx context.Context, opts []RequestOption, gone func(*Error) bool, do func(context.Context, ...client.RequestEditorFn) (*http.Response, error)) error {
	ctx, trace := withCallTrace(ctx)
	ctx, cancel, editors := newRequestConfig(opts).bind(ctx)
	defer cancel()
	err := receiveNoContent(do(ctx, editors...))
	if e, ok := asError(err); ok && gone != nil && gone(e) && trace.lost() {
		return nil
	}
	return err
}

// goneNotFound is the answer to a repeated delete of an upload or webhook endpoint.
func goneNotFound(e *Error) bool { return e.StatusCode == http.StatusNotFound }
