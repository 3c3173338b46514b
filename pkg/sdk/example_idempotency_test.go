package sdk_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/sdktest"
)

// Every POST gets a random Idempotency-Key that its retries reuse. A key of your own
// makes a write happen once across calls and processes, for example a setup step that
// may run twice.
func ExampleWithIdempotencyKey() {
	srv := sdktest.New() // a fake of the API, for the example
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	req := sdk.CreateWebhookEndpointRequest{Url: "https://crm.example/doceval"}
	first, err := c.CreateWebhookEndpoint(ctx, req, sdk.WithIdempotencyKey("crm-setup-webhook"))
	if err != nil {
		log.Fatal(err)
	}
	again, err := c.CreateWebhookEndpoint(ctx, req, sdk.WithIdempotencyKey("crm-setup-webhook"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same endpoint:", first.Id == again.Id)

	// The key belongs to that request: another body with it is refused.
	_, err = c.CreateWebhookEndpoint(ctx, sdk.CreateWebhookEndpointRequest{Url: "https://crm.example/other"},
		sdk.WithIdempotencyKey("crm-setup-webhook"))
	fmt.Println(sdk.Code(err))
	// Output:
	// same endpoint: true
	// idempotency_key_reused
}

// WithLogger reports every retry; WithRetryHook gets the same as a RetryEvent.
func ExampleWithLogger() {
	srv := sdktest.New()
	defer srv.Close()
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "idempotency_key" {
				return slog.Attr{} // they change from run to run
			}
			return a
		},
	}))
	c := srv.Client(sdk.WithLogger(logger))

	srv.FailNext("createSubmission", http.StatusServiceUnavailable, "service_unavailable")
	sub, err := c.CreateSubmission(context.Background(), sdk.CreateSubmissionRequest{ExternalSubmissionId: "crm-7"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sub.ExternalSubmissionId)
	// Output:
	// level=INFO msg="doceval: retrying" method=POST path=/v1/submissions attempt=1 wait=0s status=503 code=service_unavailable
	// crm-7
}

func ExampleClient_WaitForUploads() {
	srv := sdktest.New()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	sub, err := c.CreateSubmission(ctx, sdk.CreateSubmissionRequest{ExternalSubmissionId: "crm-8"})
	if err != nil {
		log.Fatal(err)
	}
	var ids []uuid.UUID
	for _, name := range []string{"payslip-1", "payslip-2"} {
		up, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{
			ExternalFileID: name, Filename: name + ".pdf", ContentType: "application/pdf", Body: strings.NewReader("%PDF-1.7 " + name),
		})
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, up.Id)
	}

	uploads, err := c.WaitForUploads(ctx, sub.Id, ids, sdk.WaitUploadsOptions{
		Interval: 10 * time.Millisecond, // the default, 15 s, is what production should use
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, up := range uploads {
		switch up.UploadStatus {
		case sdk.UploadStatusReady:
			fmt.Println(up.ExternalFileId, "ready")
		case sdk.UploadStatusFailed:
			fmt.Println(up.ExternalFileId, "failed:", up.Failure.Code)
		default: // a status this version does not know
			fmt.Println(up.ExternalFileId, up.UploadStatus)
		}
	}
	// Output:
	// payslip-1 ready
	// payslip-2 ready
}
