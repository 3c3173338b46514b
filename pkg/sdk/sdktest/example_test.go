package sdktest_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/sdktest"
)

// The partner flow against the fake. In a test, sdktest.NewServer(t) starts it and
// closes it when the test ends; New and Close do the same by hand.
func Example() {
	srv := sdktest.New()
	defer srv.Close()
	c := srv.Client() // an *sdk.Client; sdk.New(srv.URL, srv.APIKey) works as well
	ctx := context.Background()

	sub, err := c.CreateSubmission(ctx, sdk.CreateSubmissionRequest{ExternalSubmissionId: "crm-4711", TemplateId: ptr("personal_loan")})
	if err != nil {
		log.Fatal(err)
	}
	up, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{
		ExternalFileID: "payslip-2026-01", Filename: "payslip.pdf", ContentType: "application/pdf",
		Body: strings.NewReader("%PDF-1.7 a payslip"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("upload:", up.UploadStatus)

	uploads, _ := c.WaitForUploads(ctx, sub.Id, nil, sdk.WaitUploadsOptions{Interval: time.Millisecond})
	fmt.Println("then:", uploads[0].UploadStatus)

	ev, err := c.StartEvaluation(ctx, sub.Id)
	if err != nil {
		log.Fatal(err)
	}
	done, _ := c.WaitForEvaluation(ctx, sub.Id, ev.Id, sdk.WaitOptions{Interval: time.Millisecond})
	fmt.Println("evaluation:", done.Status, done.Result.Summary.Outcome)

	for e, err := range c.ListEvents(ctx, &sdk.ListEventsParams{SubmissionId: &sub.Id}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("event:", e.Type)
	}
	// Output:
	// upload: processing
	// then: ready
	// evaluation: completed passed
	// event: evaluation.completed
	// event: evaluation.started
	// event: file.ready
}

// FailNext scripts an error for an operation's next call; Calls shows the SDK retried
// it.
func ExampleServer_FailNext() {
	srv := sdktest.New()
	defer srv.Close()
	c := srv.Client()

	srv.FailNext("createSubmission", http.StatusServiceUnavailable, "authz_not_applied_yet")
	_, err := c.CreateSubmission(context.Background(), sdk.CreateSubmissionRequest{ExternalSubmissionId: "crm-1"})
	fmt.Println(err, srv.Calls("createSubmission"))

	srv.FailNext("createSubmission", http.StatusConflict, "partner_data_purge_in_progress")
	_, err = c.CreateSubmission(context.Background(), sdk.CreateSubmissionRequest{ExternalSubmissionId: "crm-2"})
	fmt.Println(sdk.Code(err), sdk.IsRetryable(err))
	// Output:
	// <nil> 2
	// partner_data_purge_in_progress false
}
