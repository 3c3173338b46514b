package apiserver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/sdktest"
)

// The SDK's retries of writes against the real handlers: an answer lost on the way
// back makes the SDK send the write again with the same Idempotency-Key, and the
// service answers with what it did the first time instead of doing it twice.

// losingTransport sits under the SDK's retrying transport. The first request matching
// method and path reaches the service, which handles it; its answer is then dropped
// and the SDK gets an error, as when a connection breaks on the way back. It records
// the Idempotency-Key and Idempotent-Replayed of every matching exchange.
type losingTransport struct {
	next         http.RoundTripper
	method, path string

	mu       sync.Mutex
	keys     []string
	replayed []string
}

var errAnswerLost = errors.New("connection reset by peer (the test dropped the answer)")

func (l *losingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := l.next.RoundTrip(req)
	if err != nil || req.Method != l.method || req.URL.Path != l.path {
		return res, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys = append(l.keys, req.Header.Get(sdk.HeaderIdempotencyKey))
	l.replayed = append(l.replayed, res.Header.Get(sdk.HeaderIdempotentReplayed))
	if len(l.keys) == 1 {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return nil, errAnswerLost
	}
	return res, nil
}

// exchanges returns the keys and Idempotent-Replayed values seen, one per attempt.
func (l *losingTransport) exchanges() (keys, replayed []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.keys...), append([]string(nil), l.replayed...)
}

// sdkClientLosing is an SDK client for key whose first method+path answer is lost.
func (e *testEnv) sdkClientLosing(key, method, path string) (*sdk.Client, *losingTransport) {
	e.t.Helper()
	lose := &losingTransport{next: e.http.Transport, method: method, path: path}
	c, err := sdk.New(e.srv.URL, key,
		sdk.WithHTTPClient(&http.Client{Transport: lose}),
		sdk.WithRetryPolicy(sdk.RetryPolicy{BaseDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}),
	)
	if err != nil {
		e.t.Fatal(err)
	}
	return c, lose
}

// wantOneReplay checks that the write was sent twice with one key, the second answer
// being the first one replayed.
func wantOneReplay(t *testing.T, lose *losingTransport) {
	t.Helper()
	keys, replayed := lose.exchanges()
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Errorf("keys %q: want the same key on both attempts", keys)
	}
	if len(replayed) != 2 || replayed[0] != "" || replayed[1] != "true" {
		t.Errorf("Idempotent-Replayed %q: want the retry answered by the replay", replayed)
	}
}

// The SDK's retried webhook-endpoint create makes one
// endpoint when the first answer is lost.
func TestSDKRetriedWebhookEndpointCreateMakesOneEndpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c, lose := e.sdkClientLosing(key, http.MethodPost, "/v1/webhook_endpoints")

	ep, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "https://crm.example/doceval"})
	if err != nil {
		t.Fatal(err)
	}
	if ep.SigningSecret == "" || ep.Url != "https://crm.example/doceval" {
		t.Errorf("endpoint %+v", ep)
	}
	wantOneReplay(t, lose)

	var ids []uuid.UUID
	for listed, err := range c.ListWebhookEndpoints(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, listed.Id)
	}
	if len(ids) != 1 || ids[0] != ep.Id {
		t.Fatalf("endpoints %v, want only %v", ids, ep.Id)
	}
}

// The other writes the issue names as unsafe to retry before keys: a custom check (a
// repeat would make a "_2" duplicate) and starting an evaluation (a repeat would be 409
// evaluation_in_progress), and an upload, which is kept by its external_file_id anyway.
func TestSDKRetriedCreatesAfterALostAnswerHappenOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("createCheck", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		_, key := e.newClient()
		c, lose := e.sdkClientLosing(key, http.MethodPost, "/v1/checks")
		check, err := c.CreateCheck(ctx, client.CreateCheckRequest{Title: "Schufa score", Prompt: "Find the SCHUFA score."})
		if err != nil {
			t.Fatal(err)
		}
		wantOneReplay(t, lose)
		var keys []string
		for ch, err := range c.ListChecks(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if !ch.Builtin {
				keys = append(keys, ch.Key)
			}
		}
		if len(keys) != 1 || keys[0] != check.Key || check.Key != "schufa_score" {
			t.Errorf("custom checks %v, created %q", keys, check.Key)
		}
	})

	t.Run("startEvaluation", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		_, key := e.newClient()
		sub := e.createSubmission(e.client(key), client.CreateSubmissionRequest{ExternalSubmissionId: "sdk-lost-start"})
		e.readyUpload(e.client(key), sub.Id, "ready")
		c, lose := e.sdkClientLosing(key, http.MethodPost, "/v1/submissions/"+sub.Id.String()+"/evaluations")
		ev, err := c.StartEvaluation(ctx, sub.Id)
		if err != nil {
			t.Fatal(err)
		}
		wantOneReplay(t, lose)
		detail, err := c.GetSubmission(ctx, sub.Id)
		if err != nil || detail.LatestEvaluation == nil || detail.LatestEvaluation.Id != ev.Id {
			t.Errorf("latest evaluation %+v, started %v (%v)", detail.LatestEvaluation, ev.Id, err)
		}
	})

	t.Run("createUpload", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		_, key := e.newClient()
		sub := e.createSubmission(e.client(key), client.CreateSubmissionRequest{ExternalSubmissionId: "sdk-lost-upload"})
		c, lose := e.sdkClientLosing(key, http.MethodPost, "/v1/submissions/"+sub.Id.String()+"/files")
		up, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{
			ExternalFileID: "payslip", ContentType: "application/pdf", Body: strings.NewReader("%PDF-1.7 payslip"),
		})
		if err != nil {
			t.Fatal(err)
		}
		wantOneReplay(t, lose)
		n, err := countAll(c.ListUploads(ctx, sub.Id, nil))
		if err != nil || n != 1 || up.ExternalFileId != "payslip" {
			t.Errorf("%d uploads (%v), upload %+v", n, err, up)
		}
		if e.blobCount(e.blobRoot) != 1 {
			t.Errorf("%d stored files", e.blobCount(e.blobRoot))
		}
	})
}

// A delete whose answer is lost is retried; the retry finds the resource gone, which
// the SDK reports as the success it was.
func TestSDKRetriedDeleteAfterALostAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	plain, _ := e.sdkClient(key)
	ep, err := plain.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "https://crm.example/doceval"})
	if err != nil {
		t.Fatal(err)
	}
	c, lose := e.sdkClientLosing(key, http.MethodDelete, "/v1/webhook_endpoints/"+ep.Id.String())
	if err := c.DeleteWebhookEndpoint(ctx, ep.Id); err != nil {
		t.Fatalf("delete after a lost answer: %v", err)
	}
	if keys, _ := lose.exchanges(); len(keys) != 2 {
		t.Errorf("%d attempts, want 2", len(keys))
	}
	if _, err := c.GetWebhookEndpoint(ctx, ep.Id); !sdk.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}
	// Without a lost answer, deleting it again is the service's 404.
	if err := plain.DeleteWebhookEndpoint(ctx, ep.Id); !sdk.IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}
}

// The SDK's fake server (pkg/sdk/sdktest), which partners test against, answers what
// the contract says: every answer of a flow through it is checked against the OpenAPI
// document by the same transport as the real handlers' answers. It lives here because
// the checker does; the fake needs no database.
func TestSDKTestServerAnswersMatchTheContract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	c, err := sdk.New(srv.URL, srv.APIKey, sdk.WithHTTPClient(&http.Client{Transport: newContractCheck(t)}))
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustFail := func(err error, code string) {
		t.Helper()
		if sdk.Code(err) != code {
			t.Errorf("err %v, want %s", err, code)
		}
	}

	_, err = countAll(c.ListTemplates(ctx, &client.ListTemplatesParams{Limit: ptr(1)}))
	must(err)
	_, err = c.GetTemplate(ctx, "personal_loan")
	must(err)
	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "contract", Metadata: &client.Metadata{"crm": 1}})
	must(err)
	_, err = c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "contract"})
	must(err)
	detail, err := c.GetSubmission(ctx, sub.Id)
	must(err)
	slot := detail.DocumentSlots[0].Id
	pdf := strings.NewReader("%PDF-1.7 x")
	up, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{ExternalFileID: "in-slot", ContentType: "application/pdf", Body: pdf, SlotID: &slot})
	must(err)
	_, err = c.UploadFile(ctx, sub.Id, sdk.UploadParams{ExternalFileID: "in-slot", ContentType: "application/pdf", Body: strings.NewReader("%PDF-1.7 x")})
	must(err)
	_, err = c.WaitForUploads(ctx, sub.Id, []uuid.UUID{up.Id}, sdk.WaitUploadsOptions{Interval: time.Millisecond})
	must(err)
	ev, err := c.StartEvaluation(ctx, sub.Id)
	must(err)
	_, err = c.WaitForEvaluation(ctx, sub.Id, ev.Id, sdk.WaitOptions{Interval: time.Millisecond})
	must(err)
	_, err = c.GetSubmission(ctx, sub.Id) // with slots, uploads and the completed evaluation
	must(err)
	_, err = countAll(c.ListSubmissions(ctx, &client.ListSubmissionsParams{Status: ptr(client.SubmissionStatusCompleted)}))
	must(err)

	ep, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "http://127.0.0.1:9/unreachable"})
	must(err)
	_, err = countAll(c.ListWebhookEndpoints(ctx, nil))
	must(err)
	_, err = c.GetWebhookEndpoint(ctx, ep.Id)
	must(err)
	test, err := c.TestWebhookEndpoint(ctx, ep.Id)
	must(err)
	must(srv.WaitForDeliveries(ctx))
	_, err = c.GetEvent(ctx, test.Id) // with a failed attempt
	must(err)
	_, err = c.RedeliverEvent(ctx, test.Id, client.RedeliverEventRequest{EndpointId: &ep.Id})
	must(err)
	_, err = countAll(c.ListEvents(ctx, &client.ListEventsParams{SubmissionId: &sub.Id}))
	must(err)
	feed, err := c.ListEventFeed(ctx, &client.ListEventFeedParams{FromStart: ptr(true)})
	must(err)
	_, err = c.ListEventFeed(ctx, &client.ListEventFeedParams{Cursor: &feed.NextCursor})
	must(err)
	must(c.DeleteWebhookEndpoint(ctx, ep.Id))
	other, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "contract-cancel"})
	must(err)
	_, err = c.CancelSubmission(ctx, other.Id)
	must(err)

	_, err = c.GetSubmission(ctx, uuid.New())
	mustFail(err, "not_found")
	_, err = c.CreateSubmission(ctx, client.CreateSubmissionRequest{})
	mustFail(err, "invalid_field")
	for range 2 { // the second answer is the first one replayed, with its own request id
		_, err = c.StartEvaluation(ctx, other.Id, sdk.WithIdempotencyKey("contract-start"))
		mustFail(err, "submission_canceled")
	}
	_, err = c.CreateCheck(ctx, client.CreateCheckRequest{Title: "t", Prompt: "p"})
	mustFail(err, "not_implemented")
	_, err = c.CreateCheck(ctx, client.CreateCheckRequest{Title: "t", Prompt: "p"}, sdk.WithHeader("Authorization", "Bearer nope"))
	mustFail(err, "invalid_api_key")
}
