package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// retryTransport gives every POST an Idempotency-Key and repeats the requests that are
// safe to repeat (see planSend) after network errors, 429, 5xx and 409
// idempotency_key_in_use, waiting with backoff and jitter or the server's retry-after.
// It gives the last response back unchanged when it gives up, so callers see the
// service's own error.
type retryTransport struct {
	base   http.RoundTripper
	policy RetryPolicy
	hooks  []func(context.Context, RetryEvent)
	// jitter, wait, now and newKey are injected so tests can check the schedule and the
	// keys without sleeping.
	jitter func(n int64) int64
	wait   func(ctx context.Context, d time.Duration) error
	now    func() time.Time
	newKey func() string
}

func newRetryTransport(base http.RoundTripper, policy RetryPolicy) *retryTransport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &retryTransport{
		base: base, policy: policy.withDefaults(),
		jitter: defaultJitter, wait: sleepContext, now: time.Now, newKey: newIdempotencyKey,
	}
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = withIdempotencyKey(req, t.newKey)
	plan, err := planSend(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	r := plan.first
	for attempt := 1; ; attempt++ {
		res, err := t.base.RoundTrip(r)
		code := ""
		if err == nil && res.StatusCode >= 400 {
			code = peekErrorCode(res)
		}
		if plan.next == nil || attempt >= t.policy.MaxAttempts || !shouldRetry(ctx, res, code, err) {
			return res, err
		}
		delay := t.policy.delay(attempt, res, t.jitter, t.now())
		if deadline, ok := ctx.Deadline(); ok && res != nil && time.Until(deadline) < delay {
			// The retry could not happen in time: the service's own answer (429, 503…)
			// says more than the timeout the wait would end in.
			return res, nil
		}
		event := RetryEvent{
			Method: req.Method, Path: req.URL.Path, Attempt: attempt, Code: code, Err: err, Wait: delay,
			IdempotencyKey: req.Header.Get(HeaderIdempotencyKey),
		}
		if res != nil {
			event.StatusCode = res.StatusCode
		}
		if code == "" {
			// No answer, or a proxy's instead of the service's: the attempt may have
			// been applied.
			callTraceOf(ctx).markAnswerLost()
		}
		for _, hook := range t.hooks {
			hook(ctx, event)
		}
		discard(res)
		if err := t.wait(ctx, delay); err != nil {
			return nil, err
		}
		if r, err = plan.next(); err != nil {
			return nil, err
		}
	}
}

// shouldRetry: network errors (unless the caller gave up), the answers the service
// marks retryable, judged by code or, for unknown codes, by status class, and 409
// idempotency_key_in_use (the first request with the key is still being handled).
func shouldRetry(ctx context.Context, res *http.Response, code string, err error) bool {
	if err != nil {
		return ctx.Err() == nil
	}
	return retriedAutomatically(res.StatusCode, code)
}

// maxPeekedError bounds how much of an error body is read to learn its code.
const maxPeekedError = 64 << 10

// peekErrorCode reads the error code of res without consuming its body for the caller.
func peekErrorCode(res *http.Response) string {
	head, _ := io.ReadAll(io.LimitReader(res.Body, maxPeekedError))
	res.Body = readCloser{io.MultiReader(bytes.NewReader(head), res.Body), res.Body}
	var envelope struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(head, &envelope)
	return envelope.Error.Code
}

// discard drains a little of a response that will not be used, so the connection can
// be reused, and closes it.
func discard(res *http.Response) {
	if res == nil || res.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxPeekedError))
	_ = res.Body.Close()
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
