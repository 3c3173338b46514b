package sdk

import (
	"context"
	"net/http"
	"time"
)

// Option configures New.
type Option func(*config)

type config struct {
	httpClient *http.Client
	timeout    *time.Duration
	userAgent  string
	retry      RetryPolicy
	retryHooks []func(context.Context, RetryEvent)
	// wait, jitter, now and newKey replace the transport's clock and randomness in tests.
	wait   func(ctx context.Context, d time.Duration) error
	jitter func(n int64) int64
	now    func() time.Time
	newKey func() string
}

// DefaultTimeout bounds one call, retries and waits included, unless WithTimeout or a
// client from WithHTTPClient says otherwise. Like stripe-go's 80 s; raise it (or pass
// 0 for none and rely on the context) for large uploads over slow links.
const DefaultTimeout = 80 * time.Second

// WithHTTPClient sends requests through a copy of h whose transport is wrapped by the
// retrying one; h itself is not modified. Its Timeout is kept unless WithTimeout is
// also given.
func WithHTTPClient(h *http.Client) Option {
	return func(c *config) { c.httpClient = h }
}

// WithTimeout bounds one call as http.Client.Timeout does: connecting, sending (an
// upload's body too), every retry with its wait, and reading the answer. 0 means no
// bound besides the context.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = &d }
}

// WithUserAgent puts product (for example "acme-crm/2.1") in front of the SDK's own
// User-Agent token, which stays so the service can tell SDK versions apart.
func WithUserAgent(product string) Option {
	return func(c *config) { c.userAgent = product }
}

// WithRetryPolicy replaces DefaultRetryPolicy; zero fields keep their default.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *config) { c.retry = p }
}
