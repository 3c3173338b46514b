package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/sdk"
)

func ExampleNew() {
	c, err := sdk.New("https://api.doceval.example", "dek_0123456789abcdefghijklmnopqrstuv",
		sdk.WithUserAgent("acme-crm/2.1"),
		sdk.WithTimeout(2*time.Minute),
		sdk.WithRetryPolicy(sdk.RetryPolicy{MaxAttempts: 6, MaxDelay: 10 * time.Second}),
	)
	if err != nil {
		log.Fatal(err)
	}
	// Everything the SDK does not wrap is on the generated client, with the same
	// credentials and retries.
	_ = c.API()
	fmt.Println("ready")
	// Output: ready
}

// A 429 is retried by the SDK (honouring retry-after); what is left is a typed error.
func Example_errorHandling() {
	var attempts atomic.Int32
	srv := fakeAPI(map[string]http.HandlerFunc{
		"GET /v1/submissions/" + exampleSubmission: func(w http.ResponseWriter, r *http.Request) {
			if attempts.Add(1) == 1 {
				w.Header().Set("retry-after", "0")
				answer(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{
					"code": "rate_limited", "message": "slow down", "request_id": "req_example429"}})
				return
			}
			answer(w, http.StatusNotFound, map[string]any{"error": map[string]any{
				"code": "not_found", "message": "no submission with this id", "request_id": "req_example404"}})
		},
	})
	defer srv.Close()
	c, _ := sdk.New(srv.URL, "dek_example")

	_, err := c.GetSubmission(context.Background(), uuid.MustParse(exampleSubmission))
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		fmt.Println("status:", apiErr.StatusCode, "code:", apiErr.Code, "request:", apiErr.RequestID)
	}
	fmt.Println("not found:", sdk.IsNotFound(err), "retryable:", sdk.IsRetryable(err))
	fmt.Println("attempts:", attempts.Load())
	// Output:
	// status: 404 code: not_found request: req_example404
	// not found: true retryable: false
	// attempts: 2
}

func ExampleClient_ListSubmissions() {
	srv := fakeAPI(map[string]http.HandlerFunc{
		"GET /v1/submissions": func(w http.ResponseWriter, r *http.Request) {
			item := func(ext string) map[string]any {
				return map[string]any{"id": uuid.New(), "external_submission_id": ext, "status": r.URL.Query().Get("status"),
					"display_id": "SUB-1", "template_id": "personal_loan", "created_at": time.Now(), "updated_at": time.Now()}
			}
			if r.URL.Query().Get("cursor") == "" {
				answer(w, http.StatusOK, map[string]any{"data": []any{item("crm-3"), item("crm-2")}, "next_cursor": "c2"})
				return
			}
			answer(w, http.StatusOK, map[string]any{"data": []any{item("crm-1")}, "next_cursor": nil})
		},
	})
	defer srv.Close()
	c, _ := sdk.New(srv.URL, "dek_example")

	completed := sdk.SubmissionStatus("completed")
	for sub, err := range c.ListSubmissions(context.Background(), &sdk.ListSubmissionsParams{Status: &completed}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(sub.ExternalSubmissionId, sub.Status)
	}
	// Output:
	// crm-3 completed
	// crm-2 completed
	// crm-1 completed
}

func ExampleClient_UploadFile() {
	srv := fakeAPI(map[string]http.HandlerFunc{
		"POST /v1/submissions/" + exampleSubmission + "/files": func(w http.ResponseWriter, r *http.Request) {
			id, n := readUpload(r)
			answer(w, http.StatusAccepted, map[string]any{"id": uuid.New(), "external_file_id": id, "upload_status": "processing",
				"file_id": uuid.New(), "filename": "payslip.pdf", "content_type": "application/pdf", "created_at": time.Now(),
				"document_slot_id": nil, "failure": nil, "size_seen_by_fake": n})
		},
	})
	defer srv.Close()
	c, _ := sdk.New(srv.URL, "dek_example")

	// In real code Body is usually an *os.File: it is streamed, never read into memory,
	// and being seekable it is retried safely.
	file := strings.NewReader("%PDF-1.7 a payslip")
	up, err := c.UploadFile(context.Background(), uuid.MustParse(exampleSubmission), sdk.UploadParams{
		ExternalFileID: "payslip-2026-01", Filename: "payslip.pdf", ContentType: "application/pdf", Body: file,
		Progress: func(sent, total int64) {
			if sent == total {
				fmt.Printf("sent %d of %d bytes\n", sent, total)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(up.ExternalFileId, up.UploadStatus)
	// Output:
	// sent 18 of 18 bytes
	// payslip-2026-01 processing
}

func ExampleClient_WaitForEvaluation() {
	states := []string{"queued", "running", "running", "completed"}
	var polls atomic.Int32
	srv := fakeAPI(map[string]http.HandlerFunc{
		"GET /v1/submissions/" + exampleSubmission + "/evaluations/" + exampleEvaluation: func(w http.ResponseWriter, r *http.Request) {
			n := min(int(polls.Add(1)), len(states)) - 1
			answer(w, http.StatusOK, map[string]any{"id": exampleEvaluation, "kind": "basic", "status": states[n],
				"stage_label": "stage " + fmt.Sprint(n), "progress_percent": 30 * n, "input_file_ids": []string{}})
		},
	})
	defer srv.Close()
	c, _ := sdk.New(srv.URL, "dek_example")

	ev, err := c.WaitForEvaluation(context.Background(), uuid.MustParse(exampleSubmission), uuid.MustParse(exampleEvaluation), sdk.WaitOptions{
		Interval:   10 * time.Millisecond, // the default, 15 s, is what production should use
		OnProgress: func(e *sdk.Evaluation) { fmt.Println(e.Status, e.ProgressPercent) },
	})
	if err != nil {
		log.Fatal(err)
	}
	switch ev.Status {
	case sdk.EvaluationStatusCompleted:
		fmt.Println("done")
	case sdk.EvaluationStatusFailed, sdk.EvaluationStatusCanceled:
		fmt.Println("ended without a result")
	default: // a status this version does not know: do not treat it as an error
		fmt.Println("ended in", ev.Status)
	}
	// Output:
	// queued 0
	// running 30
	// running 60
	// completed 90
	// done
}
