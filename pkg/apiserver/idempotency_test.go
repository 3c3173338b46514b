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

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/gen/client"
)

// A POST repeated with its Idempotency-Key and the same body gets the first response
// again, marked as replayed, and does nothing twice; the key with another body or on
// another path is 422 idempotency_key_reused.
func TestIdempotencyKeyReplay(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	k := uuid.NewString()
	body := client.CreateCheckRequest{Title: "Schufa score", Prompt: "Find the SCHUFA score."}
	first, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
	expect(t, err, first.StatusCode(), first.Body, 201)
	if first.HTTPResponse.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("the first response is marked replayed")
	}
	again, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
	expect(t, err, again.StatusCode(), again.Body, 201)
	if again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
		t.Fatalf("replay: %q %s", again.HTTPResponse.Header.Get("Idempotent-Replayed"), again.Body)
	}
	list, err := c.ListChecksWithResponse(ctx, &client.ListChecksParams{})
	expect(t, err, list.StatusCode(), list.Body, 200)
	custom := 0
	for _, ch := range list.JSON200.Data {
		if strings.HasPrefix(ch.Title, "Schufa") {
			custom++
		}
	}
	if custom != 1 {
		t.Fatalf("%d checks after a repeated create, want 1", custom)
	}

	// Another body with the key.
	other, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, client.CreateCheckRequest{Title: "Other", Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if d := wantError(t, other.HTTPResponse, other.Body, 422, client.ErrorCodeIdempotencyKeyReused); d.Param == nil || *d.Param != "Idempotency-Key" {
		t.Fatalf("param %v", d.Param)
	}
	// The key on another operation.
	wh, err := c.CreateWebhookEndpointWithResponse(ctx, &client.CreateWebhookEndpointParams{IdempotencyKey: &k}, client.CreateWebhookEndpointRequest{Url: "https://example.com/hook"})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, wh.HTTPResponse, wh.Body, 422, client.ErrorCodeIdempotencyKeyReused)
	// Keys are per API client: another client's identical key is a new request.
	_, key2 := e.newClient()
	theirs, err := e.client(key2).CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
	expect(t, err, theirs.StatusCode(), theirs.Body, 201)
	if theirs.HTTPResponse.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("another client's key replayed this client's response")
	}
	// A malformed key.
	bad := "has space"
	res, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &bad}, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 400 && res.StatusCode() != 422 {
		t.Fatalf("malformed key: %d %s", res.StatusCode(), res.Body)
	}
}

// Requests racing with one key create one resource: one runs, the others are told the
// key is in use or get its response replayed.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	k := uuid.NewString()
	var wg sync.WaitGroup
	statuses := make(chan int, 8)
	for range 8 {
		wg.Go(func() {
			res, err := c.CreateWebhookEndpointWithResponse(ctx, &client.CreateWebhookEndpointParams{IdempotencyKey: &k},
				client.CreateWebhookEndpointRequest{Url: "https://example.com/hook"})
			if err != nil {
				t.Error(err)
				return
			}
			if res.StatusCode() == 409 {
				wantError(t, res.HTTPResponse, res.Body, 409, client.ErrorCodeIdempotencyKeyInUse)
			}
			statuses <- res.StatusCode()
		})
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 201 && s != 409 {
			t.Errorf("status %d", s)
		}
	}
	list, err := c.ListWebhookEndpointsWithResponse(ctx, &client.ListWebhookEndpointsParams{})
	expect(t, err, list.StatusCode(), list.Body, 200)
	if len(list.JSON200.Data) != 1 {
		t.Fatalf("%d endpoints from one key, want 1", len(list.JSON200.Data))
	}
}

// An upload retried with its key is replayed even though the client encoded the same
// parts with another multipart boundary; a different file with the key is refused.
func TestIdempotencyKeyUploads(t *testing.T) {
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	sub := e.createSubmission(c, client.CreateSubmissionRequest{ExternalSubmissionId: "idem"})
	k := uuid.NewString()
	send := func(content []byte) (*http.Response, []byte) {
		ct, body := multipartBody(t, fileParts("f1", "a.pdf", "application/pdf", content)...)
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/submissions/"+sub.Id.String()+"/files", body)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Idempotency-Key", k)
		res, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		_, _ = io.Copy(&b, res.Body)
		return res, []byte(b.String())
	}
	first, firstBody := send(pdfBytes)
	expect(t, nil, first.StatusCode, firstBody, 202)
	again, againBody := send(pdfBytes)
	expect(t, nil, again.StatusCode, againBody, 202)
	if again.Header.Get("Idempotent-Replayed") != "true" || string(againBody) != string(firstBody) {
		t.Fatalf("upload replay: %q %s", again.Header.Get("Idempotent-Replayed"), againBody)
	}
	other, otherBody := send(append([]byte{}, append(pdfBytes, '\n')...))
	wantError(t, other, otherBody, 422, client.ErrorCodeIdempotencyKeyReused)

	// A kept error is replayed as this request's answer: its request_id is this request's
	// (wantError checks it against x-request-id).
	kk := uuid.NewString()
	for range 2 {
		res, err := c.StartEvaluationWithResponse(context.Background(), sub.Id, &client.StartEvaluationParams{IdempotencyKey: &kk})
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidRequest) // no ready upload yet
	}
}

// A request that failed for the server's reasons (5xx) does not keep its key: the retry
// with the same key runs.
func TestIdempotencyKeyReleasedOnServerError(t *testing.T) {
	_, ok, calls := failFirstCreateCheckThenRetry(t, func(context.Context, api.StrictServerInterface, api.CreateCheckRequestObject) (api.CreateCheckResponseObject, error) {
		return nil, errors.New("boom") // an unexpected failure: 500
	})
	if ok.HTTPResponse.Header.Get("Idempotent-Replayed") != "" || calls != 2 {
		t.Fatalf("the retry after a 500 was replayed (calls %d)", calls)
	}
}

// failFirstCreateCheckThenRetry sends createCheck with an Idempotency-Key twice to a
// server whose first CreateCheck runs first (its 500 internal_error is checked) and
// whose second runs the real handler (its 201 is checked). It returns the client, the
// second answer and how many times CreateCheck ran.
func failFirstCreateCheckThenRetry(t *testing.T, first func(context.Context, api.StrictServerInterface, api.CreateCheckRequestObject) (api.CreateCheckResponseObject, error)) (*client.ClientWithResponses, *client.CreateCheckResponse, int) {
	t.Helper()
	ctx := context.Background()
	var calls int
	e := newEnv(t, withHandlers(func(real api.StrictServerInterface) api.StrictServerInterface {
		return failFirstCreateCheck{StrictServerInterface: real, calls: &calls, first: first}
	}))
	_, key := e.newClient()
	c := e.client(key)
	k := uuid.NewString()
	body := client.CreateCheckRequest{Title: "Schufa", Prompt: "p"}
	failed, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, failed.HTTPResponse, failed.Body, 500, client.ErrorCodeInternalError)
	ok, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
	expect(t, err, ok.StatusCode(), ok.Body, 201)
	return c, ok, calls
}

// failFirstCreateCheck answers its first CreateCheck with first, later ones with the
// real handler.
type failFirstCreateCheck struct {
	api.StrictServerInterface
	calls *int
	first func(context.Context, api.StrictServerInterface, api.CreateCheckRequestObject) (api.CreateCheckResponseObject, error)
}

func (f failFirstCreateCheck) CreateCheck(ctx context.Context, req api.CreateCheckRequestObject) (api.CreateCheckResponseObject, error) {
	*f.calls++
	if *f.calls == 1 {
		return f.first(ctx, f.StrictServerInterface, req)
	}
	return f.StrictServerInterface.CreateCheck(ctx, req)
}

// A claim whose answer is lost (the database went out of reach right after taking it)
// is released once the database is back, so a retry with the key runs instead of
// meeting 409 idempotency_key_in_use until the claim goes stale.
func TestIdempotencyClaimWithLostAnswerIsReleased(t *testing.T) {
	ctx := context.Background()
	e, faults := newFaultyEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	k := uuid.NewString()
	body := client.CreateCheckRequest{Title: "Schufa score", Prompt: "Find the SCHUFA score."}
	faults.LoseAnswer(true, "INSERT INTO idempotency_keys")
	res, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
	if err != nil {
		t.Fatal(err)
	}
	if !faults.Fired() || res.StatusCode() != http.StatusServiceUnavailable {
		t.Fatalf("claim cut %v, answer %d %s; want the cut and 503", faults.Fired(), res.StatusCode(), res.Body)
	}
	faults.SetDown(false)
	inUse := 0
	for deadline := time.Now().Add(15 * time.Second); ; {
		res, err = c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
		if err != nil || res.StatusCode() != http.StatusConflict || time.Now().After(deadline) {
			break
		}
		inUse++
		time.Sleep(100 * time.Millisecond)
	}
	expect(t, err, res.StatusCode(), res.Body, 201)
	t.Logf("%d retries met the lost claim before its release", inUse)
}

// A JSON request's work, its key and its kept answer commit together: when the answer
// to its COMMIT is lost (neither the transaction id's nor COMMIT's came back, so the
// outcome is unknown and the answer is 503), the retry with the key replays what
// committed instead of creating the endpoint a second time.
func TestIdempotencyKeyKeptWithTheWork(t *testing.T) {
	ctx := context.Background()
	e, faults := newFaultyEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	k := uuid.NewString()
	body := client.CreateWebhookEndpointRequest{Url: "https://example.com/hook"}
	faults.LoseAnswer(false, "INSERT INTO webhook_endpoints", "pg_current_xact_id_if_assigned")
	lost, err := c.CreateWebhookEndpointWithResponse(ctx, &client.CreateWebhookEndpointParams{IdempotencyKey: &k}, body)
	if err != nil {
		t.Fatal(err)
	}
	if !faults.Fired() {
		t.Fatal("the COMMIT was not cut")
	}
	wantError(t, lost.HTTPResponse, lost.Body, http.StatusServiceUnavailable, client.ErrorCodeServiceUnavailable)
	list, err := c.ListWebhookEndpointsWithResponse(ctx, &client.ListWebhookEndpointsParams{})
	expect(t, err, list.StatusCode(), list.Body, 200)
	if len(list.JSON200.Data) != 1 {
		t.Fatalf("%d endpoints after the cut COMMIT; the test needs the one it committed", len(list.JSON200.Data))
	}
	again, err := c.CreateWebhookEndpointWithResponse(ctx, &client.CreateWebhookEndpointParams{IdempotencyKey: &k}, body)
	expect(t, err, again.StatusCode(), again.Body, 201)
	if again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" || again.JSON201.Id != list.JSON200.Data[0].Id {
		t.Fatalf("the retry was not the kept answer: replayed %q, endpoint %s, committed %s",
			again.HTTPResponse.Header.Get("Idempotent-Replayed"), again.JSON201.Id, list.JSON200.Data[0].Id)
	}
	if list, err = c.ListWebhookEndpointsWithResponse(ctx, &client.ListWebhookEndpointsParams{}); err != nil || len(list.JSON200.Data) != 1 {
		t.Fatalf("endpoints after the retry: %v %v", err, list.JSON200)
	}
}

// A handler that panics inside the request transaction answers 500 internal_error (the
// envelope, not an empty answer), its work and the key's claim roll back, and the retry
// with the key runs.
func TestIdempotencyKeyPanicInTheTransaction(t *testing.T) {
	c, _, calls := failFirstCreateCheckThenRetry(t, func(ctx context.Context, real api.StrictServerInterface, req api.CreateCheckRequestObject) (api.CreateCheckResponseObject, error) {
		_, _ = real.CreateCheck(ctx, req) // written in the request transaction
		panic("boom")
	})
	list, err := c.ListChecksWithResponse(context.Background(), &client.ListChecksParams{})
	expect(t, err, list.StatusCode(), list.Body, 200)
	n := 0
	for _, ch := range list.JSON200.Data {
		if ch.Title == "Schufa" {
			n++
		}
	}
	if n != 1 || calls != 2 {
		t.Fatalf("%d checks after a panic and a retry (calls %d), want 1", n, calls)
	}
}

// A repeat while the first request with the key still runs in its transaction is
// answered 409 idempotency_key_in_use at once: it does not wait for the first to end.
func TestIdempotencyKeyInUseWhileTheFirstRuns(t *testing.T) {
	ctx := context.Background()
	var calls int
	entered, release := make(chan struct{}), make(chan struct{})
	e := newEnv(t, withHandlers(func(real api.StrictServerInterface) api.StrictServerInterface {
		return failFirstCreateCheck{StrictServerInterface: real, calls: &calls,
			first: func(ctx context.Context, real api.StrictServerInterface, req api.CreateCheckRequestObject) (api.CreateCheckResponseObject, error) {
				close(entered)
				<-release
				return real.CreateCheck(ctx, req)
			}}
	}))
	_, key := e.newClient()
	c := e.client(key)
	k := uuid.NewString()
	body := client.CreateCheckRequest{Title: "Schufa", Prompt: "p"}
	first := make(chan *client.CreateCheckResponse, 1)
	go func() {
		res, err := c.CreateCheckWithResponse(ctx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
		if err != nil {
			t.Error(err)
		}
		first <- res
	}()
	<-entered
	repeatCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	repeat, err := c.CreateCheckWithResponse(repeatCtx, &client.CreateCheckParams{IdempotencyKey: &k}, body)
	close(release)
	if err != nil {
		t.Fatalf("the repeat while the first runs: %v", err)
	}
	wantError(t, repeat.HTTPResponse, repeat.Body, 409, client.ErrorCodeIdempotencyKeyInUse)
	res := <-first
	expect(t, nil, res.StatusCode(), res.Body, 201)
}
