package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/dispatch"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// The partner SDK (pkg/sdk) against the real API: its retries, typed errors, iterators,
// streaming upload and evaluation waiter, through the same contract-checking transport
// as every other test here.

// statusLog is an http.RoundTripper under the SDK's retrying transport: it sees every
// attempt, so tests can count retries.
type statusLog struct {
	next     http.RoundTripper
	mu       sync.Mutex
	statuses []int
}

func (l *statusLog) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := l.next.RoundTrip(req)
	if err == nil {
		l.mu.Lock()
		l.statuses = append(l.statuses, res.StatusCode)
		l.mu.Unlock()
	}
	return res, err
}

func (l *statusLog) take() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.statuses
	l.statuses = nil
	return s
}

// sdkClient is an SDK client for key with fast retries, and the log of its attempts.
func (e *testEnv) sdkClient(key string) (*sdk.Client, *statusLog) {
	e.t.Helper()
	log := &statusLog{next: e.http.Transport}
	c, err := sdk.New(e.srv.URL, key,
		sdk.WithHTTPClient(&http.Client{Transport: log}),
		sdk.WithRetryPolicy(sdk.RetryPolicy{BaseDelay: 10 * time.Millisecond, MaxDelay: 300 * time.Millisecond}),
	)
	if err != nil {
		e.t.Fatal(err)
	}
	return c, log
}

func withMaxUploadBytes(n int64) envOption {
	return func(d *apiserver.Deps) { d.MaxUploadBytes = n }
}

func TestSDKRetriesRateLimited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// One request per 200 ms: back-to-back calls hit 429 with retry-after 1, which the
	// SDK caps at its MaxDelay of 300 ms, by when the bucket has a token again.
	e := newEnv(t, withRateLimiter(httpx.NewRateLimiter(5, 1, nil)))
	_, key := e.newClient()
	c, log := e.sdkClient(key)

	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "sdk-429"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := c.GetSubmission(ctx, sub.Id); err != nil {
			t.Fatalf("get: %v", err)
		}
	}
	statuses := log.take()
	limited := 0
	for _, s := range statuses {
		if s == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 || statuses[len(statuses)-1] != http.StatusOK {
		t.Errorf("attempts %v: want 429s retried into successes", statuses)
	}
}

// flakySubmissions fails the first GetSubmission with an unexpected error (500) and the
// first CreateSubmission with 503 authz_not_applied_yet, then delegates.
type flakySubmissions struct {
	api.StrictServerInterface
	gets, creates atomic.Int32
}

func (f *flakySubmissions) GetSubmission(ctx context.Context, req api.GetSubmissionRequestObject) (api.GetSubmissionResponseObject, error) {
	if f.gets.Add(1) == 1 {
		return nil, errors.New("injected failure")
	}
	return f.StrictServerInterface.GetSubmission(ctx, req)
}

func (f *flakySubmissions) CreateSubmission(ctx context.Context, req api.CreateSubmissionRequestObject) (api.CreateSubmissionResponseObject, error) {
	if f.creates.Add(1) == 1 {
		e := apierr.New(http.StatusServiceUnavailable, apierr.AuthzNotAppliedYet, "authorization still propagating")
		e.RetryAfter = 10 * time.Millisecond
		return nil, e
	}
	return f.StrictServerInterface.CreateSubmission(ctx, req)
}

func TestSDKRetriesInjected500And503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	flaky := &flakySubmissions{}
	e := newEnv(t, withHandlers(func(real api.StrictServerInterface) api.StrictServerInterface {
		flaky.StrictServerInterface = real
		return flaky
	}))
	_, key := e.newClient()
	c, log := e.sdkClient(key)

	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "sdk-503"})
	if err != nil {
		t.Fatal(err)
	}
	if got := log.take(); len(got) != 2 || got[0] != 503 || got[1] != 201 {
		t.Errorf("create attempts %v, want [503 201]", got)
	}
	detail, err := c.GetSubmission(ctx, sub.Id)
	if err != nil || detail.ExternalSubmissionId != "sdk-503" {
		t.Fatalf("get: %+v %v", detail, err)
	}
	if got := log.take(); len(got) != 2 || got[0] != 500 || got[1] != 200 {
		t.Errorf("get attempts %v, want [500 200]", got)
	}
}

func TestSDKDoesNotRetry422(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c, log := e.sdkClient(key)

	_, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: ""})
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 || apiErr.Code != "invalid_field" || apiErr.Param != "external_submission_id" {
		t.Fatalf("err %v", err)
	}
	for _, err := range c.ListSubmissions(ctx, &client.ListSubmissionsParams{Limit: ptr(0)}) {
		if sdk.Code(err) != "invalid_field" || sdk.IsRetryable(err) {
			t.Errorf("list with limit 0: %v", err)
		}
	}
	if got := log.take(); len(got) != 2 || got[0] != 422 || got[1] != 422 {
		t.Errorf("attempts %v, want one 422 each", got)
	}
}

func TestSDKTypedErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c, _ := e.sdkClient(key)

	_, err := c.GetSubmission(ctx, uuid.New())
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) || !sdk.IsNotFound(err) || apiErr.Code != "not_found" || !strings.HasPrefix(apiErr.RequestID, "req_") ||
		!strings.Contains(err.Error(), apiErr.RequestID) {
		t.Fatalf("404: %v", err)
	}

	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "sdk-409"})
	if err != nil {
		t.Fatal(err)
	}
	canceled, err := c.CancelSubmission(ctx, sub.Id)
	if err != nil || canceled.Status != "canceled" {
		t.Fatalf("cancel: %+v %v", canceled, err)
	}
	_, err = c.UploadFile(ctx, sub.Id, sdk.UploadParams{ExternalFileID: "f", ContentType: "application/pdf", Body: strings.NewReader("%PDF-1.4 x")})
	if !sdk.IsConflict(err) || sdk.Code(err) != "submission_canceled" {
		t.Errorf("upload on a canceled submission: %v", err)
	}
	_, err = c.StartEvaluation(ctx, sub.Id)
	if !sdk.IsConflict(err) || sdk.Code(err) != "submission_canceled" {
		t.Errorf("evaluation on a canceled submission: %v", err)
	}
}

func TestSDKIteratesRealPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	clientID, key := e.newClient()
	c, log := e.sdkClient(key)

	var created []string
	for _, id := range []string{"sdk-it-1", "sdk-it-2", "sdk-it-3", "sdk-it-4", "sdk-it-5", "sdk-it-6", "sdk-it-7"} {
		if _, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: id}); err != nil {
			t.Fatal(err)
		}
		created = append([]string{id}, created...) // lists are newest first
	}
	log.take()

	var listed []string
	for sub, err := range c.ListSubmissions(ctx, &client.ListSubmissionsParams{Limit: ptr(3)}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, sub.ExternalSubmissionId)
	}
	if strings.Join(listed, ",") != strings.Join(created, ",") {
		t.Errorf("listed %v, want %v", listed, created)
	}
	if pages := len(log.take()); pages != 3 {
		t.Errorf("%d pages, want 3", pages)
	}
	n := 0
	for _, err := range c.ListSubmissions(ctx, &client.ListSubmissionsParams{Limit: ptr(3)}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 4 {
			break
		}
	}
	if pages := len(log.take()); pages != 2 {
		t.Errorf("%d pages fetched for 4 items, want 2", pages)
	}

	// Filters pass through every page.
	status := client.SubmissionStatus("collecting_documents")
	filtered, err := countAll(c.ListSubmissions(ctx, &client.ListSubmissionsParams{Limit: ptr(2), Status: &status}))
	if err != nil || filtered != 7 {
		t.Errorf("filtered: %d %v", filtered, err)
	}

	e.emit(clientID, 5, events.Type("file.ready"))
	if got, err := countAll(c.ListEvents(ctx, &client.ListEventsParams{Limit: ptr(2)})); err != nil || got != 5 {
		t.Errorf("events: %d %v", got, err)
	}

	// Small pages and one big page agree for the catalog lists.
	small, big := ptr(3), ptr(100)
	for name, walk := range map[string]func(limit *int) (int, error){
		"templates": func(l *int) (int, error) {
			return countAll(c.ListTemplates(ctx, &client.ListTemplatesParams{Limit: l}))
		},
		"checks": func(l *int) (int, error) { return countAll(c.ListChecks(ctx, &client.ListChecksParams{Limit: l})) },
		"data fields": func(l *int) (int, error) {
			return countAll(c.ListDataFields(ctx, &client.ListDataFieldsParams{Limit: l}))
		},
		"document types": func(l *int) (int, error) {
			return countAll(c.ListDocumentTypes(ctx, &client.ListDocumentTypesParams{Limit: l}))
		},
	} {
		paged, err1 := walk(small)
		whole, err2 := walk(big)
		if err1 != nil || err2 != nil || paged != whole || whole < 2 {
			t.Errorf("%s: %d in pages of 3, %d at once (%v, %v)", name, paged, whole, err1, err2)
		}
	}
}

func countAll[T any](seq func(func(T, error) bool)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// generatedPDF is a large file that exists nowhere in memory.
type generatedPDF struct{ sent, size int64 }

func (g *generatedPDF) Read(p []byte) (int, error) {
	if g.sent >= g.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), g.size-g.sent))
	if g.sent == 0 {
		copy(p[:n], "%PDF-1.7\n")
	}
	g.sent += int64(n)
	return n, nil
}

func TestSDKStreamsALargeUploadThroughTheAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const limit = 40 << 20
	e := newEnv(t, withMaxUploadBytes(limit))
	_, key := e.newClient()
	c, log := e.sdkClient(key)
	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "sdk-big"})
	if err != nil {
		t.Fatal(err)
	}

	const size = 32 << 20
	var lastSent int64
	up, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{
		ExternalFileID: "big-statement", Filename: "statement.pdf", ContentType: "application/pdf",
		Body: &generatedPDF{size: size}, Size: size,
		Progress: func(sent, _ int64) { lastSent = sent },
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.UploadStatus != "processing" || up.ExternalFileId != "big-statement" || lastSent != size {
		t.Errorf("upload %+v, progress ended at %d", up, lastSent)
	}
	if e.blobCount(e.blobRoot) != 1 {
		t.Errorf("%d stored files", e.blobCount(e.blobRoot))
	}

	// The same external id again: the existing upload, nothing stored.
	again, err := c.UploadFile(ctx, sub.Id, sdk.UploadParams{
		ExternalFileID: "big-statement", ContentType: "application/pdf", Body: strings.NewReader("%PDF-1.4 other"),
	})
	if err != nil || again.Id != up.Id {
		t.Errorf("repeat: %+v %v", again, err)
	}

	// Over the limit: 413 file_too_large, typed, and not retried.
	log.take()
	_, err = c.UploadFile(ctx, sub.Id, sdk.UploadParams{
		ExternalFileID: "too-big", ContentType: "application/pdf", Body: &generatedPDF{size: limit + 1}, Size: limit + 1,
	})
	if sdk.Code(err) != "file_too_large" {
		t.Errorf("over the limit: %v", err)
	}
	if got := log.take(); len(got) > 1 {
		t.Errorf("attempts %v, want one", got)
	}
	if e.blobCount(e.blobRoot) != 1 {
		t.Errorf("%d stored files after the refused upload", e.blobCount(e.blobRoot))
	}
}

func TestSDKWaitForEvaluation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c, _ := e.sdkClient(key)
	sub, err := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "sdk-wait"})
	if err != nil {
		t.Fatal(err)
	}
	e.readyUpload(e.client(key), sub.Id, "ready-file")
	started, err := c.StartEvaluation(ctx, sub.Id)
	if err != nil || started.Status != "queued" {
		t.Fatalf("start: %+v %v", started, err)
	}

	// Every change the waiter reports moves the evaluation one step on, as the
	// evaluator would: queued → running → running at 50 % → completed.
	result := `{"documents":[],"fields":[],"checks":[],"summary":{"outcome":"passed","recommendation":"proceed","risk_band":"low"}}`
	var seen []string
	drive := func(ev *client.Evaluation) {
		seen = append(seen, string(ev.Status))
		var err error
		switch {
		case ev.Status == "queued":
			_, err = e.store.BeginEvaluation(ctx, ev.Id, 3)
		case ev.Status == "running" && ev.ProgressPercent < 50:
			err = e.store.EvaluationProgress(ctx, ev.Id, "Checking", 50, time.Hour)
		case ev.Status == "running":
			err = e.store.CompleteEvaluation(ctx, ev.Id, json.RawMessage(result))
		}
		if err != nil {
			t.Error(err)
		}
	}
	done, err := c.WaitForEvaluation(ctx, sub.Id, started.Id, sdk.WaitOptions{Interval: 10 * time.Millisecond, OnProgress: drive})
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != client.EvaluationStatusCompleted || done.Result == nil || done.Result.Summary.Outcome != "passed" {
		t.Errorf("done: %+v", done)
	}
	if strings.Join(seen, ",") != "queued,running,running,completed" {
		t.Errorf("progress %v", seen)
	}
}

// What the dispatcher signs, the SDK's webhook package verifies, with each secret of a
// rotation (the scheme is also checked against stripe-go in pkg/dispatch).
func TestSDKWebhookVerifiesDispatcherSignatures(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_0190a1b2-0000-7000-8000-000000000000","type":"evaluation.progress","data":{}}`)
	now := time.Now()
	header := dispatch.Sign(body, now, []byte("whsec_new"), []byte("whsec_old"))
	for _, secret := range []string{"whsec_new", "whsec_old"} {
		if err := webhook.Verify(header, body, []string{secret}, 0, now); err != nil {
			t.Errorf("%s: %v", secret, err)
		}
	}
	if err := webhook.Verify(header, body, []string{"whsec_other"}, 0, now); !errors.Is(err, webhook.ErrMismatch) {
		t.Errorf("wrong secret: %v", err)
	}
	if got := webhook.Sign(body, now, "whsec_new", "whsec_old"); got != header {
		t.Errorf("SDK Sign %s, dispatcher %s", got, header)
	}
}
