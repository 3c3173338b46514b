package sdk

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy bounds the automatic retries. Zero fields take the defaults; set
// MaxAttempts to 1 to turn retries off.
type RetryPolicy struct {
	// MaxAttempts counts the first try: 4 means up to 3 retries.
	MaxAttempts int
	// BaseDelay is the backoff ceiling of the first retry; it doubles on every retry.
	BaseDelay time.Duration
	// MaxDelay caps both the backoff and a server's retry-after.
	MaxDelay time.Duration
}

// DefaultRetryPolicy is used unless WithRetryPolicy says otherwise.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts < 1 {
		p.MaxAttempts = DefaultRetryPolicy.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultRetryPolicy.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRetryPolicy.MaxDelay
	}
	return p
}

// backoff is the wait before retry number retry (1 for the first retry): "full
// jitter", uniform in [0, min(MaxDelay, BaseDelay·2^(retry-1))], so clients that failed
// together do not come back together. jitter(n) returns a value in [0, n).
func (p RetryPolicy) backoff(retry int, jitter func(n int64) int64) time.Duration {
	ceiling := p.MaxDelay
	if shift := retry - 1; shift < 32 {
		if d := p.BaseDelay << shift; d > 0 && d < ceiling {
			ceiling = d
		}
	}
	return time.Duration(jitter(int64(ceiling) + 1))
}

// delay is the wait before retry number retry after res (nil after a network error):
// the server's retry-after when it sent one, capped at MaxDelay, else the backoff. now
// is the clock a retry-after date is measured against.
func (p RetryPolicy) delay(retry int, res *http.Response, jitter func(n int64) int64, now time.Time) time.Duration {
	if res != nil {
		if after, ok := retryAfter(res.Header, now); ok {
			return min(after, p.MaxDelay)
		}
	}
	return p.backoff(retry, jitter)
}

// retryAfter reads the retry-after header in either form of RFC 9110: delay-seconds
// (what the service sends) or an HTTP date, which proxies and load balancers may send;
// a date in the past means no wait. Any other value is ignored and backoff applies.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0, false
	}
	if seconds, err := strconv.ParseInt(v, 10, 64); err == nil {
		if seconds < 0 {
			return 0, false
		}
		if seconds > int64(24*time.Hour/time.Second) { // absurd values would overflow
			seconds = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(seconds) * time.Second, true
	}
	date, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(date.Sub(now), 0), true
}

func defaultJitter(n int64) int64 { return rand.Int64N(n) }
