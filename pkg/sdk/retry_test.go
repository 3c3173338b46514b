package sdk

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
)

// retry-after is honoured in both forms: seconds, as the service sends it, and an HTTP
// date, as a proxy may, measured on the client's clock.
func TestRetryHonoursRetryAfterThenSucceeds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for header, want := range map[string]time.Duration{
		"2": 2 * time.Second,
		now.Add(4 * time.Second).Format(http.TimeFormat): 4 * time.Second,
	} {
		var calls atomic.Int32
		c, waits := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("retry-after", header)
				writeError(w, http.StatusTooManyRequests, "rate_limited", "")
				return
			}
			writeJSON(w, http.StatusOK, submissionJSON("crm-1"))
		}, func(c *config) { c.now = func() time.Time { return now } })
		if _, err := c.GetSubmission(context.Background(), testSubmissionID); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != 2 {
			t.Errorf("%d calls, want 2", calls.Load())
		}
		if got := waits.all(); len(got) != 1 || got[0] != want {
			t.Errorf("retry-after %q: waits %v, want [%v]", header, got, want)
		}
	}
}

func TestRetryAfterIsCappedByMaxDelay(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, waits := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("retry-after", "3600")
			writeError(w, http.StatusTooManyRequests, "rate_limited", "")
			return
		}
		writeJSON(w, http.StatusOK, submissionJSON("crm-1"))
	}, WithRetryPolicy(RetryPolicy{MaxDelay: 5 * time.Second}))
	if _, err := c.GetSubmission(context.Background(), testSubmissionID); err != nil {
		t.Fatal(err)
	}
	if got := waits.all(); len(got) != 1 || got[0] != 5*time.Second {
		t.Errorf("waits %v, want [5s]", got)
	}
}

// A 503 authz_not_applied_yet on a keyed create is retried with the very same body.
func TestRetryCreateSubmissionAfter503WithSameBody(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		bodies []string
	)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("retry-after", "1")
			writeError(w, http.StatusServiceUnavailable, "authz_not_applied_yet", "")
			return
		}
		writeJSON(w, http.StatusCreated, submissionJSON("crm-503"))
	})
	sub, err := c.CreateSubmission(context.Background(), client.CreateSubmissionRequest{ExternalSubmissionId: "crm-503"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.ExternalSubmissionId != "crm-503" {
		t.Errorf("submission %+v", sub)
	}
	if len(bodies) != 2 || bodies[0] != bodies[1] || !strings.Contains(bodies[0], `"external_submission_id":"crm-503"`) {
		t.Errorf("bodies %q", bodies)
	}
}

func TestRetryGetAfter500(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, waits := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			writeError(w, http.StatusInternalServerError, "internal_error", "")
			return
		}
		writeJSON(w, http.StatusOK, submissionJSON("crm-1"))
	}, withMaxJitter())
	if _, err := c.GetSubmission(context.Background(), testSubmissionID); err != nil {
		t.Fatal(err)
	}
	// Without retry-after the first retry waits within [0, BaseDelay].
	if got := waits.all(); len(got) != 1 || got[0] != DefaultRetryPolicy.BaseDelay {
		t.Errorf("waits %v, want [%v]", got, DefaultRetryPolicy.BaseDelay)
	}
}

// A proxy's 502 (not the envelope, unknown code) is a 5xx: retried by status class.
func TestRetryProxy502(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html>bad gateway</html>")
			return
		}
		writeJSON(w, http.StatusOK, submissionJSON("crm-1"))
	})
	if _, err := c.GetSubmission(context.Background(), testSubmissionID); err != nil || calls.Load() != 2 {
		t.Fatalf("err %v after %d calls", err, calls.Load())
	}
}

func TestRetryNetworkError(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // the connection drops before any answer
			}
			return
		}
		writeJSON(w, http.StatusOK, submissionJSON("crm-1"))
	})
	if _, err := c.GetSubmission(context.Background(), testSubmissionID); err != nil || calls.Load() != 2 {
		t.Fatalf("err %v after %d calls", err, calls.Load())
	}
}

// Answers that retrying cannot fix, and bodies that cannot be sent again, are sent
// exactly once.
func TestNoRetry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		status       int
		code         string
		call         func(*Client) error
		wantCode     string
		wantRetryErr bool
	}{
		{"422 on a GET", 422, "invalid_field", getSubmission, "invalid_field", false},
		{"unknown 4xx code", 418, "teapot_reached", getSubmission, "teapot_reached", false},
		{"409 evaluation_in_progress", 409, "evaluation_in_progress", getSubmission, "evaluation_in_progress", true},
		{"501 not_implemented", 501, "not_implemented", getSubmission, "not_implemented", false},
		{"409 evaluation_in_progress on start", 409, "evaluation_in_progress", func(c *Client) error {
			_, err := c.StartEvaluation(context.Background(), testSubmissionID)
			return err
		}, "evaluation_in_progress", true},
		{"422 idempotency_key_reused", 422, "idempotency_key_reused", func(c *Client) error {
			_, err := c.CreateSubmission(context.Background(), client.CreateSubmissionRequest{ExternalSubmissionId: "crm-1"})
			return err
		}, "idempotency_key_reused", false},
		{"409 revision_mismatch on a PUT", 409, "revision_mismatch", func(c *Client) error {
			_, err := c.ReplaceTemplateCheckItems(context.Background(), "tpl", client.ReplaceTemplateCheckItemsRequest{ExpectedRevision: 1})
			return err
		}, "revision_mismatch", false},
		{"500 on a non-seekable upload", 500, "internal_error", func(c *Client) error {
			_, err := c.UploadFile(context.Background(), testSubmissionID, UploadParams{
				ExternalFileID: "f", ContentType: "application/pdf", Body: io.MultiReader(strings.NewReader("%PDF-1.4")),
			})
			return err
		}, "internal_error", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				_, _ = io.Copy(io.Discard, r.Body)
				writeError(w, tc.status, tc.code, "")
			})
			err := tc.call(c)
			if calls.Load() != 1 {
				t.Errorf("%d calls, want 1", calls.Load())
			}
			if Code(err) != tc.wantCode || IsRetryable(err) != tc.wantRetryErr {
				t.Errorf("err %v: code %q retryable %v", err, Code(err), IsRetryable(err))
			}
		})
	}
}

func getSubmission(c *Client) error {
	_, err := c.GetSubmission(context.Background(), testSubmissionID)
	return err
}

func TestRetryGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, waits := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeError(w, http.StatusInternalServerError, "internal_error", "")
	}, withMaxJitter())
	_, err := c.GetSubmission(context.Background(), testSubmissionID)
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Code != "internal_error" || apiErr.RequestID != "req_fake" {
		t.Fatalf("err %#v, want the last 500 as *Error", err)
	}
	if calls.Load() != 4 {
		t.Errorf("%d calls, want 4", calls.Load())
	}
	// Exponential ceilings 0.5s, 1s, 2s (the jitter picks the ceiling here).
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}
	if got := waits.all(); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("waits %v, want %v", got, want)
	}
}

func TestRetryStopsWhenContextCanceledDuringBackoff(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	// The real sleep this time: the context must cut it short.
	realSleep := func(c *config) { c.wait = sleepContext }
	srvClient, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("retry-after", "30")
		writeError(w, http.StatusServiceUnavailable, "authz_not_applied_yet", "")
	}, realSleep)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := srvClient.GetSubmission(ctx, testSubmissionID)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("returned after %v", elapsed)
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls, want 1", calls.Load())
	}
}

func TestBackoffStaysWithinCeilings(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for retry := 1; retry <= 40; retry++ {
		ceiling := min(p.MaxDelay, p.BaseDelay<<min(retry-1, 20))
		for range 50 {
			if d := p.backoff(retry, defaultJitter); d < 0 || d > ceiling {
				t.Fatalf("retry %d: %v outside [0, %v]", retry, d, ceiling)
			}
		}
	}
}

// When the context's deadline comes before the retry could, the caller gets the
// service's answer rather than a timeout.
func TestRetryReturnsTheAnswerWhenTheDeadlineIsTooNear(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, waits := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("retry-after", "20")
		writeError(w, http.StatusTooManyRequests, "rate_limited", "")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.GetSubmission(ctx, testSubmissionID)
	if !IsRateLimited(err) || calls.Load() != 1 || len(waits.all()) != 0 {
		t.Errorf("err %v after %d calls and waits %v", err, calls.Load(), waits.all())
	}
}
