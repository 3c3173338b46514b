package sdk

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// waitLog stands in for the transport's sleep: it records each wait and returns at once.
type waitLog struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (l *waitLog) wait(ctx context.Context, d time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waits = append(l.waits, d)
	return ctx.Err()
}

func (l *waitLog) all() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.waits...)
}

// withMaxJitter makes full jitter pick the top of its range, so waits are exact.
func withMaxJitter() Option {
	return func(c *config) { c.jitter = func(n int64) int64 { return n - 1 } }
}

// newTestClient is a client of a fake API served by h, whose retry waits are recorded
// instead of slept.
func newTestClient(t *testing.T, h http.HandlerFunc, opts ...Option) (*Client, *waitLog) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	log := &waitLog{}
	all := append([]Option{func(c *config) { c.wait = log.wait }}, opts...)
	c, err := New(srv.URL, "dek_test", all...)
	if err != nil {
		t.Fatal(err)
	}
	return c, log
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_fake")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers the API's error envelope.
func writeError(w http.ResponseWriter, status int, code, param string) {
	detail := map[string]any{"code": code, "message": "fake " + code, "request_id": "req_fake"}
	if param != "" {
		detail["param"] = param
	}
	writeJSON(w, status, map[string]any{"error": detail})
}

var (
	testSubmissionID = uuid.MustParse("0190a1b2-0000-7000-8000-000000000001")
	testEvaluationID = uuid.MustParse("0190a1b2-0000-7000-8000-000000000002")
)

func submissionJSON(externalID string) map[string]any {
	return map[string]any{
		"id": testSubmissionID, "display_id": "SUB-00000001", "template_id": "personal_loan",
		"external_submission_id": externalID, "status": "collecting_documents",
		"created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z",
		"metadata": map[string]any{}, "consistency": map[string]any{"authz": "applied"},
	}
}

func evaluationJSON(status string, progress int, stage string) map[string]any {
	return map[string]any{
		"id": testEvaluationID, "kind": "basic", "status": status, "stage_label": stage,
		"progress_percent": progress, "input_file_ids": []string{},
	}
}
