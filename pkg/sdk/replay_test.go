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
		repeatable  bool
	}{
		{"GET", "https://api.example/v1/submissions/x", nil, true},
		{"HEAD", "https://api.example/v1/templates", nil, true},
		{"POST", "https://api.example/v1/submissions", body(`{"external_submission_id":"crm-1"}`), true},
		{"POST", "https://api.example/prefix/v1/submissions", body(`{"template_id":"personal_loan","external_submission_id":"crm-1"}`), true},
		{"POST", "https://api.example/v1/submissions", body(`{"external_submission_id":""}`), false},
		{"POST", "https://api.example/v1/submissions", body(`{"template_id":"personal_loan"}`), false},
		{"POST", "https://api.example/v1/submissions", body(`not json`), false},
		{"POST", "https://api.example/v1/submissions/x/files", seekable, true},
		{"POST", "https://api.example/v1/submissions/x/document-slots/y/files", seekable, true},
		{"POST", "https://api.example/v1/submissions/x/files", oneShot, false},
		{"POST", "https://api.example/v1/submissions/x/evaluations", nil, false},
		{"POST", "https://api.example/v1/submissions/x/cancel", nil, false},
		{"POST", "https://api.example/v1/templates", body(`{"display_name":"x","external_submission_id":"crm-1"}`), false},
		{"PATCH", "https://api.example/v1/submissions/x", body(`{"metadata":{}}`), false},
		{"DELETE", "https://api.example/v1/submissions/x/files/y", nil, false},
		{"PUT", "https://api.example/v1/templates/x/check_items", body(`{}`), false},
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
		plan, err := planSend(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.url, err)
		}
		if got := plan.next != nil; got != tc.repeatable {
			t.Errorf("%s %s: repeatable %v, want %v", tc.method, tc.url, got, tc.repeatable)
		}
	}
}

// The create body that was read to find the key is sent whole, every attempt.
func TestPlanSendReplaysTheBufferedBody(t *testing.T) {
	t.Parallel()
	const payload = `{"external_submission_id":"crm-1","metadata":{"a":1}}`
	req, _ := http.NewRequest("POST", "https://api.example/v1/submissions", strings.NewReader(payload))
	plan, err := planSend(req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := plan.next()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*http.Request{plan.first, again} {
		if b, _ := io.ReadAll(r.Body); string(b) != payload || r.ContentLength != int64(len(payload)) {
			t.Errorf("body %q, length %d", b, r.ContentLength)
		}
	}
}

// A body too large to buffer is sent once, intact.
func TestPlanSendPassesAnOversizedCreateThrough(t *testing.T) {
	t.Parallel()
	payload := `{"external_submission_id":"crm-1","metadata":{"pad":"` + strings.Repeat("x", maxReplayedJSON) + `"}}`
	req, _ := http.NewRequest("POST", "https://api.example/v1/submissions", io.MultiReader(strings.NewReader(payload)))
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
