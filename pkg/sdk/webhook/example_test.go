package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/doceval/doceval/pkg/sdk/webhook"
)

var exampleBody = []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000000","type":"evaluation.completed","created_at":"2026-01-02T03:04:05Z","api_client_id":"0190a1b2-0000-7000-8000-00000000000c","data":{"evaluation":{"id":"0190a1b2-0000-7000-8000-000000000002","status":"completed","kind":"basic","stage_label":"Done","progress_percent":100,"input_file_ids":[]}}}`)

func ExampleVerify() {
	secrets := []string{"whsec_current", "whsec_previous"} // both during a rotation
	// What the service would send (webhook.Sign exists for tests like this one).
	header := webhook.Sign(exampleBody, time.Now(), "whsec_previous")

	// In a handler: body is the raw request body, read before any JSON decoding.
	if err := webhook.Verify(header, exampleBody, secrets, webhook.DefaultTolerance, time.Now()); err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified")

	tampered := bytes.Replace(exampleBody, []byte("completed"), []byte("failed"), 1)
	fmt.Println(webhook.Verify(header, tampered, secrets, 0, time.Now()))
	// Output:
	// verified
	// webhook: signature does not match the body
}

func ExampleVerifyRequest() {
	secrets := []string{"whsec_+2PCfheixaWMloMQaHvcrtcrtKC01GXiIR6aspUjTz4="}
	// What the service would send: X-Service-Signature and the Standard Webhooks headers
	// (webhook.SignRequest exists for tests like this one).
	req := httptest.NewRequest(http.MethodPost, "/webhooks/doceval", bytes.NewReader(exampleBody))
	webhook.SignRequest(req.Header, "evt_0190a1b2-0000-7000-8000-000000000000", exampleBody, time.Now(), secrets...)
	req.Header.Del(webhook.SignatureHeader) // either scheme is enough

	// In a handler: body is the raw request body, read before any JSON decoding.
	body, _ := io.ReadAll(req.Body)
	if err := webhook.VerifyRequest(req.Header, body, secrets, webhook.DefaultTolerance, time.Now()); err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified", req.Header.Get(webhook.IDHeader))
	// Output:
	// verified evt_0190a1b2-0000-7000-8000-000000000000
}

func ExampleHandler() {
	handle := func(ctx context.Context, e webhook.Event) error {
		switch e.Type {
		case "evaluation.completed":
			ev, err := e.Evaluation()
			if err != nil {
				return err
			}
			fmt.Println("evaluation", ev.Status)
		default: // types this version does not know: e.Data is the raw JSON
			fmt.Println("ignored", e.Type)
		}
		return nil // hand long work to a queue: the service waits 30 s at most
	}
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/doceval", webhook.Handler([]string{"whsec_current"}, webhook.NewMemoryDedupStore(0), handle))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The same delivery twice, as a retry would send it: handled once, acknowledged twice.
	header := webhook.Sign(exampleBody, time.Now(), "whsec_current")
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhooks/doceval", bytes.NewReader(exampleBody))
		req.Header.Set(webhook.SignatureHeader, header)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		fmt.Println(res.StatusCode)
	}
	// Output:
	// evaluation completed
	// 200
	// 200
}
