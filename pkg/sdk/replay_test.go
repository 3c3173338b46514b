package sdk

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestPlanSendRepeatsOnlyWhatIsSafe(t *testing.T) {
	t.Parallel()
	seekable := func() io.Reader { return bytes.NewReader([]byte("--multipart--")) }
	oneShot := func() io.Reader { return io.MultiReader(strings.NewReader("--multipart--")) }
	cases := []struct {
		method, url string
		body        func() io.Reader
		keyed       bool
		repeatable  bool
	}{
		{"GET", "https://api.example/v1/submissions/x", nil, false, true},
		{"HEAD", "https://api.example/v1/templates", nil, false, true},
		{"POST", "https://api.example/v1/submissions", body(`{"external_submission_id":"crm-1"}`), true, true},
		{"POST", "https://api.example/prefix/v1/submissions", body(`{"template_id":"personal_loan","external_submission_id":"crm-1"}`), true, true},
		{"POST", "https://api.example/v1/submissions", body(`{"external_submission_id":"crm-1"}`), false, false},
		{"POST", "https://api.example/v1/submissions/x/files", seekable, true, true},
		{"POST", "https://api.example/v1/submissions/x/document-slots/y/files", seekable, true, true},
		{"POST", "https://api.example/v1/submissions/x/files", oneShot, true, false},
		{"POST", "https://api.example/v1/submissions/x/evaluations", nil, true, true},
		{"POST", "https://api.example/v1/submissions/x/cancel", nil, true, true},
		{"POST", "https://api.example/v1/templates", body(`{"display_name":"x"}`), true, true},
		{"POST", "https://api.example/v1/webhook_endpoints/x/test", nil, true, true},
		{"PATCH", "https://api.example/v1/submissions/x", body(`{"metadata":{}}`), false, true},
		{"PATCH", "https://api.example/v1/templates/x", body(`{"expected_revision":1}`), false, true},
		{"PATCH", "https://api.example/v1/submissions/x/files/y", body(`{"document_slot_id":null}`), false, true},
		{"PATCH", "https://api.example/v1/webhook_endpoints/x", body(`{"status":"disabled"}`), false, true},
		{"PATCH", "https://api.example/v1/checks/x", body(`{"title":"t"}`), false, true},
		{"PATCH", "https://api.example/v1/something_new/x", body(`{}`), false, false},
		{"DELETE", "https://api.example/v1/submissions/x/files/y", nil, false, true},
		{"PUT", "https://api.example/v1/templates/x/check_items", body(`{}`), false, true},
	}
	for _, tc := range cases {
		var b io.Reader
		if tc.body != nil {
			b = tc.body()
		}
		req, err := http.NewRequest(tc.method, tc.url, b)
		if err != nil {
			t.Fatal(err)
		}
		if tc.keyed {
			req.Header.Set(HeaderIdempotencyKey, "k")
		}
		plan, err := planSend(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.url, err)
		}
		if got := plan.next != nil; got != tc.repeatable {
			t.Errorf("%s %s: repeatable %v, want %v", tc.method, tc.url, got, tc.repeatable)
		}
	}
}

// A JSON body that cannot be produced again is buffered and sent whole, every attempt.
func TestPlanSendReplaysTheBufferedBody(t *testing.T) {
	t.Parallel()
	const payload = `{"external_submission_id":"crm-1","metadata":{"a":1}}`
	req, _ := http.NewRequest("POST", "https://api.example/v1/submissions", io.MultiReader(strings.NewReader(payload)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderIdempotencyKey, "k")
	plan, err := planSend(req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := plan.next()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*http.Request{plan.first, again} {
		if b, _ := io.ReadAll(r.Body); string(b) != payload {
			t.Errorf("body %q", b)
		}
	}
}

// A body too large to buffer is sent once, intact.
func TestPlanSendPassesAnOversizedCreateThrough(t *testing.T) {
	t.Parallel()
	payload := `{"external_submission_id":"crm-1","metadata":{"pad":"` + strings.Repeat("x", maxReplayedJSON) + `"}}`
	req, _ := http.NewRequest("POST", "https://api.example/v1/submissions", io.MultiReader(strings.NewReader(payload)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderIdempotencyKey, "k")
	plan, err := planSend(req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.next != nil {
		t.Error("an oversized body is repeatable")
	}
	if b, _ := io.ReadAll(plan.first.Body); string(b) != payload {
		t.Errorf("body of %d bytes, want %d", len(b), len(payload))
	}
}

func body(s string) func() io.Reader {
	return func() io.Reader { return strings.NewReader(s) }
}
