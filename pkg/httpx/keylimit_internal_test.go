package httpx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/store"
)

// countingAuthenticator knows one key and counts the lookups that would have been
// database queries.
type countingAuthenticator struct {
	valid []byte
	calls atomic.Int64
}

func (a *countingAuthenticator) Authenticate(_ context.Context, keyHash []byte) (store.Credential, error) {
	a.calls.Add(1)
	if bytes.Equal(keyHash, a.valid) {
		return store.Credential{}, nil
	}
	return store.Credential{}, store.ErrNotFound
}

func TestInvalidKeysAreLimitedBeforeTheLookup(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	good := auth.NewKey()
	authn := &countingAuthenticator{valid: auth.HashKey(good)}
	e := echo.New()
	e.IPExtractor = IPExtractor(nil)
	e.HTTPErrorHandler = ErrorHandler(slog.New(slog.DiscardHandler))
	e.Use(Authenticate(authn, NewInvalidKeyLimiter(1, 3, fake.Now)))
	e.GET("/v1/things", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	send := func(peer, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/v1/things", nil)
		req.RemoteAddr = peer + ":40000"
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}

	if rec := send("203.0.113.7", good); rec.Code != http.StatusNoContent {
		t.Fatalf("valid key: %d", rec.Code)
	}
	for i, key := range []string{auth.NewKey(), "", "not-a-key"} { // the burst: unknown, missing, malformed
		if rec := send("203.0.113.7", key); rec.Code != http.StatusUnauthorized {
			t.Fatalf("bad key %d within the burst: %d", i, rec.Code)
		}
	}
	before := authn.calls.Load()
	for _, key := range []string{auth.NewKey(), "", auth.NewKey()} {
		rec := send("203.0.113.7", key)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
			t.Fatalf("bad key after the burst: %d retry-after %q", rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	if n := authn.calls.Load() - before; n != 0 {
		t.Errorf("%d lookups for limited requests, want none", n)
	}
	if rec := send("203.0.113.7", good); rec.Code != http.StatusNoContent {
		t.Errorf("recently valid key from the limited source: %d", rec.Code)
	}
	if rec := send("198.51.100.1", auth.NewKey()); rec.Code != http.StatusUnauthorized {
		t.Errorf("bad key from another source: %d", rec.Code)
	}
	fake.Advance(time.Second)
	if rec := send("203.0.113.7", auth.NewKey()); rec.Code != http.StatusUnauthorized {
		t.Errorf("bad key after retry-after: %d", rec.Code)
	}
}

// A flood of distinct sources does not grow the limiter past maxKeySources; sources
// beyond it share the overflow bucket, and buckets back at full make room again.
func TestInvalidKeyLimiterBoundsSources(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	l := NewInvalidKeyLimiter(1, 2, fake.Now)
	addr := func(i int) string { return fmt.Sprintf("10.%d.%d.%d", i>>16&0xff, i>>8&0xff, i&0xff) }
	for i := range 2 * maxKeySources {
		l.Failed(addr(i))
	}
	if n, _ := l.size(); n != maxKeySources {
		t.Fatalf("%d sources tracked, want %d", n, maxKeySources)
	}
	for i := 2 * maxKeySources; i < 2*maxKeySources+10; i++ { // the overflow bucket is drained
		l.Failed(addr(i))
	}
	if l.Refuse(addr(3*maxKeySources), nil) == nil {
		t.Error("a new source while the map is full does not share the drained overflow bucket")
	}
	if l.Refuse(addr(0), nil) != nil {
		t.Error("a tracked source with a token left is refused")
	}

	fake.Advance(2 * time.Second) // every bucket is full again
	l.Failed(addr(4 * maxKeySources))
	if n, _ := l.size(); n != 1 {
		t.Errorf("%d sources after the sweep, want 1", n)
	}

	// Addresses of one IPv6 /64 are one source.
	for i := range 2 {
		l.Failed(fmt.Sprintf("2001:db8:1:2::%x", i+1))
	}
	if l.Refuse("2001:db8:1:2:ffff::1", nil) == nil {
		t.Error("another address of a drained /64 is not limited")
	}
	if l.Refuse("2001:db8:1:3::1", nil) != nil {
		t.Error("another /64 is limited")
	}
}

func TestInvalidKeyLimiterBoundsRecentKeys(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	l := NewInvalidKeyLimiter(1, 1, fake.Now)
	for i := range maxRecentKeys + 100 {
		fake.Advance(time.Millisecond)
		l.Succeeded(auth.HashKey(fmt.Sprint(i)))
	}
	if _, n := l.size(); n != maxRecentKeys {
		t.Fatalf("%d keys remembered, want %d", n, maxRecentKeys)
	}
	l.Failed("192.0.2.1")
	if l.Refuse("192.0.2.1", auth.HashKey(fmt.Sprint(maxRecentKeys+99))) != nil {
		t.Error("the latest valid key is refused")
	}
	if l.Refuse("192.0.2.1", auth.HashKey("0")) == nil {
		t.Error("the oldest key, evicted, still passes")
	}
	fake.Advance(recentKeyTTL)
	l.Failed("192.0.2.1")
	if l.Refuse("192.0.2.1", auth.HashKey(fmt.Sprint(maxRecentKeys+99))) == nil {
		t.Error("a key valid longer ago than recentKeyTTL still passes")
	}
}

func TestInvalidKeyLimiterOff(t *testing.T) {
	t.Parallel()
	for _, l := range []*InvalidKeyLimiter{nil, NewInvalidKeyLimiter(0, 20, nil)} {
		for range 100 {
			l.Failed("192.0.2.1")
		}
		if err := l.Refuse("192.0.2.1", nil); err != nil {
			t.Errorf("%v: refused while off", l)
		}
	}
}
