package httpx

import (
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/doceval/doceval/pkg/apierr"
)

// Bounds of the InvalidKeyLimiter's memory: a flood of distinct sources or keys must not
// grow it without bound.
const (
	// maxKeySources is how many sources have a bucket of their own; sources seen while
	// that many are tracked (after buckets back at full have been dropped) share one
	// overflow bucket.
	maxKeySources = 10_000
	// maxRecentKeys recently authenticated key hashes are remembered for recentKeyTTL.
	maxRecentKeys = 1_024
	recentKeyTTL  = 10 * time.Minute
)

// InvalidKeyLimiter bounds the authentication failures of each source address
// (DOCEVAL_INVALID_KEY_RATE per second, DOCEVAL_INVALID_KEY_BURST burst) so that random
// well-formed keys cannot make the API run a database query per request. A source whose
// bucket is empty is answered 429 rate_limited before its key is looked up, unless the
// key authenticated on this process recently: a partner sharing a NAT address with an
// attacker keeps working. A valid key not seen recently is refused like a bad one while
// its source is limited. Buckets are per process, like RateLimiter's.
type InvalidKeyLimiter struct {
	perSecond rate.Limit
	burst     int
	now       func() time.Time

	mu        sync.Mutex
	sources   map[netip.Prefix]*rate.Limiter
	overflow  *rate.Limiter
	lastSweep time.Time
	recent    map[string]time.Time // key hash → when it last authenticated
}

// NewInvalidKeyLimiter returns a limiter; perSecond <= 0 disables it.
func NewInvalidKeyLimiter(perSecond float64, burst int, now func() time.Time) *InvalidKeyLimiter {
	if burst < 1 {
		burst = 1
	}
	if now == nil {
		now = time.Now
	}
	return &InvalidKeyLimiter{
		perSecond: rate.Limit(perSecond), burst: burst, now: now,
		sources:  map[netip.Prefix]*rate.Limiter{},
		overflow: rate.NewLimiter(rate.Limit(perSecond), burst),
		recent:   map[string]time.Time{},
	}
}

// enabled reports whether l limits anything (a nil limiter does not).
func (l *InvalidKeyLimiter) enabled() bool { return l != nil && l.perSecond > 0 }

// sourceOf is the bucket's key of an address: an IPv6 source counts as its /64, which
// one host usually holds whole. An address that does not parse shares one bucket.
func sourceOf(addr string) netip.Prefix {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p
	}
	return netip.PrefixFrom(a, a.BitLen())
}

// bucket is the source's bucket; l.mu is held.
func (l *InvalidKeyLimiter) bucket(src netip.Prefix, now time.Time) *rate.Limiter {
	if b, ok := l.sources[src]; ok {
		return b
	}
	if len(l.sources) >= maxKeySources && now.Sub(l.lastSweep) >= time.Second {
		l.lastSweep = now
		for s, b := range l.sources {
			if b.TokensAt(now) >= float64(l.burst) { // a full bucket is a new one
				delete(l.sources, s)
			}
		}
	}
	if len(l.sources) >= maxKeySources {
		return l.overflow
	}
	b := rate.NewLimiter(l.perSecond, l.burst)
	l.sources[src] = b
	return b
}

// Refuse is the 429 to answer a request from addr with, or nil when its source may
// still fail. keyHash is the request's key hash (nil for a missing or malformed key):
// one that authenticated recently is never refused.
func (l *InvalidKeyLimiter) Refuse(addr string, keyHash []byte) error {
	if !l.enabled() {
		return nil
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if keyHash != nil {
		if at, ok := l.recent[string(keyHash)]; ok && now.Sub(at) < recentKeyTTL {
			return nil
		}
	}
	tokens := l.bucket(sourceOf(addr), now).TokensAt(now)
	if tokens >= 1 {
		return nil
	}
	return &apierr.Error{
		Status: http.StatusTooManyRequests, Code: apierr.RateLimited,
		Message:    "rate limit exceeded; honour retry-after and retry with backoff and jitter",
		RetryAfter: time.Duration((1 - tokens) / float64(l.perSecond) * float64(time.Second)),
	}
}

// Failed takes a token from addr's source for a request that did not authenticate.
func (l *InvalidKeyLimiter) Failed(addr string) {
	if !l.enabled() {
		return
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bucket(sourceOf(addr), now).AllowN(now, 1)
}

// Succeeded remembers a key hash that authenticated, so that its requests pass while
// their source is limited.
func (l *InvalidKeyLimiter) Succeeded(keyHash []byte) {
	if !l.enabled() {
		return
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.recent[string(keyHash)]; !ok && len(l.recent) >= maxRecentKeys {
		var oldest string
		for k, at := range l.recent {
			if now.Sub(at) >= recentKeyTTL {
				delete(l.recent, k)
			} else if oldest == "" || at.Before(l.recent[oldest]) {
				oldest = k
			}
		}
		if len(l.recent) >= maxRecentKeys {
			delete(l.recent, oldest)
		}
	}
	l.recent[string(keyHash)] = now
}

// size is how many sources and key hashes l holds (tests).
func (l *InvalidKeyLimiter) size() (sources, keys int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sources), len(l.recent)
}
