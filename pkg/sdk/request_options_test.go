package sdk

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRequestOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var seen atomic.Value
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Clone())
		if r.URL.Query().Get("slow") != "" || r.URL.Path == "/v1/checks/slow" {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{})
	})

	if _, err := c.GetCheck(ctx, "chk", WithHeader("X-Trace", "a"), WithHeader("X-Trace", "b"), WithHeader("Authorization", "Bearer dek_other")); err != nil {
		t.Fatal(err)
	}
	h := seen.Load().(http.Header)
	if got := h.Values("X-Trace"); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("X-Trace %v", got)
	}
	if got := h.Get("Authorization"); got != "Bearer dek_other" {
		t.Errorf("Authorization %q: the option should replace the client's", got)
	}
	if !strings.HasPrefix(h.Get("User-Agent"), "doceval-go-sdk/") {
		t.Errorf("User-Agent %q", h.Get("User-Agent"))
	}

	start := time.Now()
	_, err := c.GetCheck(ctx, "slow", WithRequestTimeout(50*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Errorf("timeout: %v after %v", err, time.Since(start))
	}
	// The timeout is the call's only: the next call is not bounded by it.
	if _, err := c.GetCheck(ctx, "chk"); err != nil {
		t.Errorf("after a timed-out call: %v", err)
	}
	// Lists apply options to every page.
	for _, err := range c.ListChecks(ctx, nil, WithHeader("X-Trace", "list")) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := seen.Load().(http.Header).Get("X-Trace"); got != "list" {
		t.Errorf("list X-Trace %q", got)
	}
}
