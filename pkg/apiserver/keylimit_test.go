package apiserver_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/config"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/secretbox"
)

// forwardedFor sends a (forged) X-Forwarded-For naming a different client each time.
func forwardedFor(i int) client.RequestEditorFn {
	return func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i%250+1))
		return nil
	}
}

// After a burst of bad keys from one source, its requests are answered 429 rate_limited
// without a database query, whatever X-Forwarded-For they send, except those whose key
// authenticated recently. The database is out of reach while they are answered: a
// lookup would have failed with 503.
func TestInvalidKeysAreLimitedPerSource(t *testing.T) {
	ctx := context.Background()
	fake := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	e, faults := newFaultyEnv(t, withInvalidKeyLimiter(httpx.NewInvalidKeyLimiter(1, 5, fake.Now)))
	_, known := e.newClient()
	_, unseen := e.newClient()
	if res, err := e.client(known).ListEventsWithResponse(ctx, nil); err != nil || res.StatusCode() != 200 {
		t.Fatalf("valid key: %v %d", err, res.StatusCode())
	}

	for i := range 5 { // the burst, each from a "different client" by X-Forwarded-For
		res, err := e.client(auth.NewKey()).ListEventsWithResponse(ctx, nil, forwardedFor(i))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res.HTTPResponse, res.Body, 401, client.ErrorCodeInvalidApiKey)
	}

	faults.SetDown(true)
	for i, key := range []string{auth.NewKey(), "", unseen} { // unknown, missing, valid but not seen here
		res, err := e.client(key).ListEventsWithResponse(ctx, nil, forwardedFor(100+i))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res.HTTPResponse, res.Body, 429, client.ErrorCodeRateLimited)
		if ra := res.HTTPResponse.Header.Get("retry-after"); ra != "1" {
			t.Errorf("retry-after %q, want 1", ra)
		}
	}
	// The recently valid key is looked up: with the database down that fails.
	if res, err := e.client(known).ListEventsWithResponse(ctx, nil); err != nil || res.StatusCode() != 503 {
		t.Fatalf("recently valid key with the database down: %v %d, want 503", err, res.StatusCode())
	}
	faults.SetDown(false)
	if res, err := e.client(known).ListEventsWithResponse(ctx, nil); err != nil || res.StatusCode() != 200 {
		t.Fatalf("recently valid key from the limited source: %v %d", err, res.StatusCode())
	}

	fake.Advance(time.Second)
	if res, err := e.client(unseen).ListEventsWithResponse(ctx, nil); err != nil || res.StatusCode() != 200 {
		t.Fatalf("valid key after retry-after: %v %d", err, res.StatusCode())
	}
}

// Behind a trusted proxy, X-Forwarded-For names the source: another client behind the
// same proxy is not limited by the first one's bad keys.
func TestInvalidKeysAreLimitedPerForwardedSource(t *testing.T) {
	ctx := context.Background()
	proxies, err := config.ParseProxies("127.0.0.1,::1")
	if err != nil {
		t.Fatal(err)
	}
	fake := clock.NewFake(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	e := newEnv(t, withInvalidKeyLimiter(httpx.NewInvalidKeyLimiter(1, 2, fake.Now), proxies...))
	for range 2 {
		res, err := e.client(auth.NewKey()).ListEventsWithResponse(ctx, nil, forwardedFor(1))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res.HTTPResponse, res.Body, 401, client.ErrorCodeInvalidApiKey)
	}
	res, err := e.client(auth.NewKey()).ListEventsWithResponse(ctx, nil, forwardedFor(1))
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, res.HTTPResponse, res.Body, 429, client.ErrorCodeRateLimited)
	res, err = e.client(auth.NewKey()).ListEventsWithResponse(ctx, nil, forwardedFor(2))
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, res.HTTPResponse, res.Body, 401, client.ErrorCodeInvalidApiKey)
}

// A DOCEVAL_TRUSTED_PROXIES that does not parse stops the api at start-up.
func TestAPIRefusesBadTrustedProxies(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := apiserver.Config{Tunables: apiserver.Tunables{SecretKey: secretbox.NewKey(), TrustedProxies: "10.0.0.0/8, proxy.internal"}}
	err = apiserver.RunOn(context.Background(), cfg, slog.New(slog.DiscardHandler), ln)
	if err == nil || !strings.Contains(err.Error(), "DOCEVAL_TRUSTED_PROXIES") || !strings.Contains(err.Error(), "proxy.internal") {
		t.Fatalf("start-up error %v, want one naming DOCEVAL_TRUSTED_PROXIES and the bad value", err)
	}
}
