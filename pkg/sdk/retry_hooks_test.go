package sdk

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
)

func TestRetryAfterSecondsOrHTTPDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"-1", 0, false},
		{"99999999999", 24 * time.Hour, true},
		{"Sun, 01 Mar 2026 12:00:09 GMT", 9 * time.Second, true},  // IMF-fixdate
		{"Sunday, 01-Mar-26 12:00:09 GMT", 9 * time.Second, true}, // RFC 850
		{"Sun Mar  1 12:00:09 2026", 9 * time.Second, true},       // asctime
		{"Sun, 01 Mar 2026 11:59:00 GMT", 0, true},                // past: at once
		{"soon", 0, false},
		{"1.5", 0, false},
	}
	for _, tc := range cases {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Retry-After", tc.header)
		}
		got, ok := retryAfter(h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retry-after %q: %v %v, want %v %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRetryHookSeesEveryRetry(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		events []RetryEvent
		calls  atomic.Int32
	)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		// A dropped connection comes first: on a reused one net/http would retry by itself.
		switch calls.Add(1) {
		case 1:
			dropConnection(w)
		case 2:
			w.Header().Set("retry-after", "3")
			writeError(w, http.StatusTooManyRequests, "rate_limited", "")
		default:
			writeJSON(w, http.StatusCreated, submissionJSON("crm-1"))
		}
	}, withMaxJitter(), func(c *config) { c.newKey = func() string { return "key-1" } },
		WithRetryHook(func(e RetryEvent) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		}))
	if _, err := c.CreateSubmission(context.Background(), client.CreateSubmissionRequest{ExternalSubmissionId: "crm-1"}); err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("events %+v", events)
	}
	// The first retry follows a network error: no status, the error, backoff's wait.
	first, second := events[0], events[1]
	if first.Method != "POST" || first.Path != "/v1/submissions" || first.Attempt != 1 || first.StatusCode != 0 ||
		first.Err == nil || first.Wait != DefaultRetryPolicy.BaseDelay || first.IdempotencyKey != "key-1" {
		t.Errorf("first %+v", first)
	}
	if second.Attempt != 2 || second.StatusCode != 429 || second.Code != "rate_limited" || second.Err != nil ||
		second.Wait != 3*time.Second || second.IdempotencyKey != "key-1" {
		t.Errorf("second %+v", second)
	}
}

func TestWithLoggerLogsRetries(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	var calls atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("retry-after", "2")
			writeError(w, http.StatusServiceUnavailable, "service_unavailable", "")
			return
		}
		writeJSON(w, http.StatusOK, submissionJSON("crm-1"))
	}, WithLogger(logger))
	if _, err := c.GetSubmission(context.Background(), testSubmissionID); err != nil {
		t.Fatal(err)
	}
	want := `level=INFO msg="doceval: retrying" method=GET path=/v1/submissions/` + testSubmissionID.String() +
		` attempt=1 wait=2s status=503 code=service_unavailable`
	if got := strings.TrimSpace(out.String()); got != want {
		t.Errorf("logged\n%s\nwant\n%s", got, want)
	}
}
