package sdktest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/sdk"
	"github.com/doceval/doceval/pkg/sdk/sdktest"
	"github.com/doceval/doceval/pkg/sdk/webhook"
)

// receiver is a partner's webhook endpoint built on package webhook, which verifies
// signatures and deduplicates; it records what it accepted, and answers 503 while
// refusing.
type receiver struct {
	mu       sync.Mutex
	verified http.Handler
	refusing bool
	events   []webhook.Event
}

func newReceiver(t *testing.T) (*receiver, string) {
	r := &receiver{}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

// verifyWith sets the endpoint's signing secret once it is known.
func (r *receiver) verifyWith(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verified = webhook.Handler([]string{secret}, webhook.NewMemoryDedupStore(time.Hour), func(_ context.Context, e webhook.Event) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, e)
		return nil
	})
}

func (r *receiver) refuse(refusing bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusing = refusing
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	verified, refusing := r.verified, r.refusing
	r.mu.Unlock()
	if refusing || verified == nil {
		http.Error(w, "not now", http.StatusServiceUnavailable)
		return
	}
	verified.ServeHTTP(w, req)
}

func (r *receiver) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var types []string
	for _, e := range r.events {
		types = append(types, string(e.Type))
	}
	return types
}

// twoReceivers registers two receivers as endpoints: one for every event type, one for
// file.failed only.
func twoReceivers(ctx context.Context, t *testing.T, c *sdk.Client) (all, onlyFailures *receiver, ep, ep2 *client.WebhookEndpointWithSecret) {
	t.Helper()
	all, allURL := newReceiver(t)
	onlyFailures, failuresURL := newReceiver(t)
	ep, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: allURL})
	if err != nil {
		t.Fatal(err)
	}
	all.verifyWith(ep.SigningSecret)
	failed := []client.EventType{client.EventTypeFileFailed}
	ep2, err = c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: failuresURL, Events: &failed})
	if err != nil {
		t.Fatal(err)
	}
	onlyFailures.verifyWith(ep2.SigningSecret)
	return all, onlyFailures, ep, ep2
}

func TestWebhookDeliveriesAreSignedLikeTheService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	c := srv.Client()

	all, onlyFailures, ep, ep2 := twoReceivers(ctx, t, c)
	if _, err := c.CreateWebhookEndpoint(ctx, client.CreateWebhookEndpointRequest{Url: "http://crm.example/hooks"}); sdk.Code(err) != "invalid_field" {
		t.Errorf("plain http to a public host: %v", err)
	}

	sub, _ := c.CreateSubmission(ctx, client.CreateSubmissionRequest{ExternalSubmissionId: "crm-hooks"})
	upload(t, c, sub.Id, "payslip", nil)
	test, err := c.TestWebhookEndpoint(ctx, ep2.Id)
	if err != nil || test.Type != client.EventTypeWebhookEndpointTest || len(test.Deliveries) != 1 {
		t.Fatalf("test event %+v %v", test, err)
	}
	if err := srv.WaitForDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	if got := all.types(); !slices.Equal(got, []string{"file.ready"}) {
		t.Errorf("all-events endpoint got %v", got)
	}
	if got := onlyFailures.types(); !slices.Equal(got, []string{"webhook_endpoint.test"}) {
		t.Errorf("file.failed endpoint got %v", got)
	}
	detail, err := c.GetEvent(ctx, test.Id)
	if err != nil || detail.Deliveries[0].DeliveryStatus != client.DeliveryStatusSucceeded || detail.Deliveries[0].AttemptCount != 1 {
		t.Errorf("test event after delivery: %+v %v", detail, err)
	}

	// A receiver that refuses sees the delivery abandoned (the fake does not retry); a
	// redelivery once it accepts succeeds.
	all.refuse(true)
	emitted := srv.Emit(client.EventTypeEvaluationProgress, map[string]any{"evaluation": map[string]any{"progress_percent": 40}})
	_ = srv.WaitForDeliveries(ctx)
	refused, _ := c.GetEvent(ctx, emitted.Id)
	if d := refused.Deliveries[0]; d.DeliveryStatus != client.DeliveryStatusAbandoned || *d.Attempts[0].ResponseStatus != http.StatusServiceUnavailable {
		t.Errorf("refused delivery %+v", d)
	}
	all.refuse(false)
	if _, err := c.RedeliverEvent(ctx, emitted.Id, client.RedeliverEventRequest{}); err != nil {
		t.Fatal(err)
	}
	_ = srv.WaitForDeliveries(ctx)
	redelivered, _ := c.GetEvent(ctx, emitted.Id)
	if d := redelivered.Deliveries[0]; d.DeliveryStatus != client.DeliveryStatusSucceeded || len(d.Attempts) != 2 {
		t.Errorf("redelivery %+v", d)
	}
	if got := all.types(); !slices.Equal(got, []string{"file.ready", "evaluation.progress"}) {
		t.Errorf("all-events endpoint got %v", got)
	}

	if err := c.DeleteWebhookEndpoint(ctx, ep.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetWebhookEndpoint(ctx, ep.Id); !sdk.IsNotFound(err) {
		t.Errorf("deleted endpoint: %v", err)
	}
}

func TestEventFeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sdktest.NewServer(t)
	c := srv.Client()

	srv.Emit(client.EventTypeFileReady, map[string]any{"n": 0})
	start, err := c.ListEventFeed(ctx, nil)
	if err != nil || len(start.Data) != 0 || start.NextCursor == "" {
		t.Fatalf("feed without after: %+v %v", start, err)
	}
	for i := 1; i <= 3; i++ {
		srv.Emit(client.EventTypeFileReady, map[string]any{"n": i})
	}
	srv.Emit(client.EventTypeEvaluationStarted, map[string]any{"n": 4})
	page, err := c.ListEventFeed(ctx, &client.ListEventFeedParams{Cursor: &start.NextCursor, Limit: ptr(2)})
	if err != nil || len(page.Data) != 2 || page.Data[0].Data["n"] != 1.0 {
		t.Fatalf("first page %+v %v", page, err)
	}
	types := []client.EventType{client.EventTypeEvaluationStarted}
	page, err = c.ListEventFeed(ctx, &client.ListEventFeedParams{Cursor: &page.NextCursor, Type: &types})
	if err != nil || len(page.Data) != 1 || page.Data[0].Data["n"] != 4.0 {
		t.Fatalf("filtered page %+v %v", page, err)
	}
	whole, err := c.ListEventFeed(ctx, &client.ListEventFeedParams{FromStart: ptr(true)})
	if err != nil || len(whole.Data) != 5 {
		t.Errorf("from the start: %d events %v", len(whole.Data), err)
	}

	// Long polling: the read waits for the event emitted while it waits.
	go func() {
		time.Sleep(50 * time.Millisecond)
		srv.Emit(client.EventTypeFileFailed, map[string]any{"n": 5})
	}()
	began := time.Now()
	page, err = c.ListEventFeed(ctx, &client.ListEventFeedParams{Cursor: &page.NextCursor, Wait: ptr(10)})
	if err != nil || len(page.Data) != 1 || page.Data[0].Type != client.EventTypeFileFailed || time.Since(began) > 5*time.Second {
		t.Fatalf("long poll: %+v %v after %v", page, err, time.Since(began))
	}
	// Nothing new: an empty page after the wait, with a cursor to go on from.
	empty, err := c.ListEventFeed(ctx, &client.ListEventFeedParams{Cursor: &page.NextCursor, Wait: ptr(1)})
	if err != nil || len(empty.Data) != 0 || empty.NextCursor != page.NextCursor {
		t.Errorf("empty long poll: %+v %v", empty, err)
	}
	if _, err := c.ListEventFeed(ctx, &client.ListEventFeedParams{Cursor: ptr("garbage")}); sdk.Code(err) != "invalid_field" {
		t.Errorf("bad cursor: %v", err)
	}
	// after is the former name of cursor: the same position, and refused when they differ.
	if again, err := c.ListEventFeed(ctx, &client.ListEventFeedParams{After: &start.NextCursor}); err != nil || len(again.Data) != 5 {
		t.Errorf("after: %d events %v", len(again.Data), err)
	}
	if _, err := c.ListEventFeed(ctx, &client.ListEventFeedParams{Cursor: &start.NextCursor, After: &page.NextCursor}); sdk.Code(err) != "invalid_field" {
		t.Errorf("cursor and after differing: %v", err)
	}
}
