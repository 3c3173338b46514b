package httpx

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/auth"
)

// RateLimiter is a token bucket per API client (DOCEVAL_RATE_LIMIT requests per second,
// DOCEVAL_RATE_LIMIT_BURST burst). Buckets are per process: N api replicas allow N times
// the rate, which the operator accounts for when setting it.
type RateLimiter struct {
	perSecond rate.Limit
	burst     int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[uuid.UUID]*rate.Limiter
}

// NewRateLimiter returns a limiter; perSecond <= 0 disables limiting.
func NewRateLimiter(perSecond float64, burst int, now func() time.Time) *RateLimiter {
	if burst < 1 {
		burst = 1
	}
	if now == nil {
		now = time.Now
	}
	return &RateLimiter{perSecond: rate.Limit(perSecond), burst: burst, now: now, buckets: map[uuid.UUID]*rate.Limiter{}}
}

func (l *RateLimiter) bucket(client uuid.UUID) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[client]
	if !ok {
		b = rate.NewLimiter(l.perSecond, l.burst)
		l.buckets[client] = b
	}
	return b
}

// Middleware answers 429 rate_limited with retry-after (whole seconds) when the
// client's bucket is empty. It runs after Authenticate.
func (l *RateLimiter) Middleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if l.perSecond <= 0 {
				return next(c)
			}
			p, ok := auth.FromContext(c.Request().Context())
			if !ok {
				return next(c)
			}
			now := l.now()
			b := l.bucket(p.ClientID)
			r := b.ReserveN(now, 1)
			delay := r.DelayFrom(now)
			if delay > 0 {
				r.CancelAt(now)
			}
			l.tell(c.Response().Header(), b.TokensAt(now))
			if delay > 0 {
				return &apierr.Error{
					Status: http.StatusTooManyRequests, Code: apierr.RateLimited,
					Message:    "rate limit exceeded; honour retry-after and retry with backoff and jitter",
					RetryAfter: delay,
				}
			}
			return next(c)
		}
	}
}

// tell says where the client stands in the headers every answer carries while limiting
// is on (RateLimitLimit, RateLimitRemaining and RateLimitReset in the spec, the names of
// the IETF draft "RateLimit header fields for HTTP"): its burst, the requests it may
// still send at once (tokens left, after this request's), and the whole seconds until
// its bucket is full again at perSecond.
func (l *RateLimiter) tell(h http.Header, tokens float64) {
	tokens = max(tokens, 0)
	reset := math.Ceil((float64(l.burst) - tokens) / float64(l.perSecond))
	h.Set("RateLimit-Limit", strconv.Itoa(min(l.burst, math.MaxInt32)))
	h.Set("RateLimit-Remaining", strconv.Itoa(int(tokens)))
	h.Set("RateLimit-Reset", strconv.Itoa(int(min(max(reset, 0), math.MaxInt32))))
}
