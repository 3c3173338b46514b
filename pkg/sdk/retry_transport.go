package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// retryTransport repeats requests that are safe to repeat (see planSend) after 429,
// 5xx and network errors, waiting with backoff and jitter or the server's retry-after.
// It gives the last response back unchanged when it gives up, so callers see the
// service's own error.
type retryTransport struct {
	base   http.RoundTripper
	policy RetryPolicy
	// jitter and wait are injected so tests can check the schedule without sleeping.
	jitter func(n int64) int64
	wait   func(ctx context.Context, d time.Duration) error
}

func newRetryTransport(base http.RoundTripper, policy RetryPolicy) *retryTransport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &retryTransport{base: base, policy: policy.withDefaults(), jitter: defaultJitter, wait: sleepContext}
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	plan, err := planSend(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	r := plan.first
	for attempt := 1; ; attempt++ {
		res, err := t.base.RoundTrip(r)
		if plan.next == nil || attempt >= t.policy.MaxAttempts || !shouldRetry(ctx, res, err) {
			return res, err
		}
		delay := t.policy.delay(attempt, res, t.jitter)
		if deadline, ok := ctx.Deadline(); ok && res != nil && time.Until(deadline) < delay {
			// The retry could not happen in time: the service's own answer (429, 503…)
			// says more than the timeout the wait would end in.
			return res, nil
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

// shouldRetry: network errors (unless the caller gave up) and the answers the
// contract marks retryable, judged by code or, for unknown codes, by status class.
func shouldRetry(ctx context.Context, res *http.Response, err error) bool {
	if err != nil {
		return ctx.Err() == nil
	}
	if res.StatusCode != http.StatusTooManyRequests && res.StatusCode < 500 {
		return false
	}
	return retriedAutomatically(res.StatusCode, peekErrorCode(res))
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
