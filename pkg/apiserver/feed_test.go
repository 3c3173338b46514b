package apiserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/store"
)

// feed reads the feed once and returns the ids read and the next cursor.
func feed(t *testing.T, c *client.ClientWithResponses, p client.ListEventFeedParams) ([]string, string) {
	t.Helper()
	res, err := c.ListEventFeedWithResponse(context.Background(), &p)
	expect(t, err, res.StatusCode(), res.Body, 200)
	var ids []string
	for _, ev := range res.JSON200.Data {
		ids = append(ids, string(ev.Id))
	}
	if res.JSON200.NextCursor == "" {
		t.Fatal("next_cursor is empty")
	}
	return ids, res.JSON200.NextCursor
}

// feedUntil reads the feed from cursor until it has n events (other tests' open
// transactions in the same PostgreSQL cluster may hold events back for a moment), and
// returns them with the cursor after them.
func feedUntil(t *testing.T, c *client.ClientWithResponses, p client.ListEventFeedParams, n int) ([]string, string) {
	t.Helper()
	var all []string
	deadline := time.Now().Add(30 * time.Second)
	for len(all) < n {
		if time.Now().After(deadline) {
			t.Fatalf("read %d events in 30 s, want %d: %v", len(all), n, all)
		}
		p.Wait = ptr(2)
		if p.Limit == nil {
			p.Limit = ptr(client.Limit(n - len(all)))
		}
		got, next := feed(t, c, p)
		all = append(all, got...)
		p.Cursor = &next
	}
	return all, *p.Cursor
}

// The feed starts at its end, then reads every later event once, oldest first, and
// filters by type.
func TestEventFeed(t *testing.T) {
	e := newEnv(t)
	id, key := e.newClient()
	c := e.client(key)
	early := e.emit(id, 2, events.FileReady)
	got, cur := feed(t, c, client.ListEventFeedParams{})
	if len(got) != 0 {
		t.Fatalf("a feed without a cursor starts at the end, read %v", got)
	}
	all, _ := feedUntil(t, c, client.ListEventFeedParams{FromStart: ptr(true)}, 2)
	if all[0] != early[0] || all[1] != early[1] {
		t.Fatalf("from the start: %v, want %v", all, early)
	}
	later := append(e.emit(id, 3, events.FileReady), e.emit(id, 1, events.DocumentSlotUpdated)...)
	otherID, _ := e.newClient() // another client's events never show
	e.emit(otherID, 2, events.FileReady)
	got, cur2 := feedUntil(t, c, client.ListEventFeedParams{Cursor: &cur, Limit: ptr(client.Limit(2))}, 2)
	if got[0] != later[0] || got[1] != later[1] {
		t.Fatalf("first page %v, want %v", got, later[:2])
	}
	got, cur3 := feedUntil(t, c, client.ListEventFeedParams{Cursor: &cur2}, 2)
	if len(got) != 2 || got[0] != later[2] || got[1] != later[3] {
		t.Fatalf("second page %v, want %v", got, later[2:])
	}
	if got, _ := feed(t, c, client.ListEventFeedParams{Cursor: &cur3, Wait: ptr(1)}); len(got) != 0 {
		t.Fatalf("read twice: %v", got)
	}
	types := []client.EventType{client.EventTypeDocumentSlotUpdated}
	if got, _ := feedUntil(t, c, client.ListEventFeedParams{Cursor: &cur, Type: &types}, 1); len(got) != 1 || got[0] != later[3] {
		t.Fatalf("type filter: %v", got)
	}
	for _, bad := range []string{"nope", "eyJ4IjoxfQ"} {
		feedRefused(t, c, client.ListEventFeedParams{Cursor: &bad}, "cursor")
	}
}

// feedRefused reads the feed with p and wants 422 invalid_field naming param.
func feedRefused(t *testing.T, c *client.ClientWithResponses, p client.ListEventFeedParams, param string) {
	t.Helper()
	res, err := c.ListEventFeedWithResponse(context.Background(), &p)
	if err != nil {
		t.Fatal(err)
	}
	if d := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidField); d.Param == nil || *d.Param != param {
		t.Errorf("param %v, want %s", d.Param, param)
	}
}

// after, the former name of cursor, still reads from the position it names, and is named
// in its errors; both names with different values are refused, the same value is one.
func TestEventFeedAfterIsCursor(t *testing.T) {
	e := newEnv(t)
	id, key := e.newClient()
	c := e.client(key)
	_, cur := feed(t, c, client.ListEventFeedParams{})
	emitted := e.emit(id, 2, events.FileReady)
	byCursor, next := feedUntil(t, c, client.ListEventFeedParams{Cursor: &cur}, 2)
	byAfter, _ := feed(t, c, client.ListEventFeedParams{After: &cur})
	if len(byAfter) != 2 || byAfter[0] != emitted[0] || byAfter[1] != emitted[1] || byCursor[0] != byAfter[0] {
		t.Fatalf("after read %v, cursor %v, want %v", byAfter, byCursor, emitted)
	}
	if got, _ := feed(t, c, client.ListEventFeedParams{Cursor: &cur, After: &cur}); len(got) != 2 {
		t.Fatalf("cursor and after alike read %v, want the 2 events", got)
	}
	feedRefused(t, c, client.ListEventFeedParams{Cursor: &next, After: &cur}, "cursor")
	feedRefused(t, c, client.ListEventFeedParams{After: ptr("nope")}, "after")
}

// An event whose transaction commits after a later one's is not passed over: the feed
// withholds events until every older transaction has ended.
func TestEventFeedOutOfOrderCommits(t *testing.T) {
	e := newEnv(t)
	id, key := e.newClient()
	c := e.client(key)
	_, cur := feed(t, c, client.ListEventFeedParams{})

	holding, release, done := make(chan string, 1), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- e.store.InTx(context.Background(), func(tx *store.Tx) error {
			env, err := tx.Emit(context.Background(), events.Draft{APIClientID: id, Type: events.FileReady, Data: map[string]any{"slow": true}})
			if err != nil {
				return err
			}
			holding <- env.ID
			<-release
			return nil
		})
	}()
	slow := <-holding
	fast := e.emit(id, 1, events.FileReady)[0] // commits first

	got, next := feed(t, c, client.ListEventFeedParams{Cursor: &cur})
	if len(got) != 0 {
		t.Fatalf("read %v while an older transaction was still open", got)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, _ = feedUntil(t, c, client.ListEventFeedParams{Cursor: &next}, 2)
	if len(got) != 2 || got[0] != slow || got[1] != fast {
		t.Fatalf("after the slow commit: %v, want [%s %s]", got, slow, fast)
	}
}

// A long-polling read returns as soon as an event arrives, not at its deadline. The
// bound is 8 of the 10 seconds waited, not "at once": the feed shows an event only once
// every older transaction of the PostgreSQL cluster has ended (pg_current_snapshot's
// xmin), and under make test other tests' databases share the cluster, so a transaction
// they hold open can withhold this test's event for seconds (it once took 5.8 s).
func TestEventFeedWait(t *testing.T) {
	e := newEnv(t)
	id, key := e.newClient()
	c := e.client(key)
	_, cur := feed(t, c, client.ListEventFeedParams{})
	go func() {
		time.Sleep(500 * time.Millisecond)
		e.emit(id, 1, events.FileReady)
	}()
	start := time.Now()
	got, _ := feed(t, c, client.ListEventFeedParams{Cursor: &cur, Wait: ptr(10)})
	if len(got) != 1 || time.Since(start) > 8*time.Second {
		t.Fatalf("long poll: %v after %v", got, time.Since(start))
	}
}

// A test event goes to the one endpoint, signed and delivered like any other, and the
// fan-out does not send it to the client's other endpoints.
func TestWebhookEndpointTestEvent(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, key := e.newClient()
	c := e.client(key)
	one, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://example.com/one"})
	expect(t, err, one.StatusCode(), one.Body, 201)
	all, err := c.CreateWebhookEndpointWithResponse(ctx, nil, client.CreateWebhookEndpointRequest{Url: "https://example.com/all"})
	expect(t, err, all.StatusCode(), all.Body, 201)
	res, err := c.TestWebhookEndpointWithResponse(ctx, one.JSON201.Id, nil)
	expect(t, err, res.StatusCode(), res.Body, 202)
	if res.JSON202.Type != client.EventTypeWebhookEndpointTest || len(res.JSON202.Deliveries) != 1 || res.JSON202.Deliveries[0].EndpointId != one.JSON201.Id {
		t.Fatalf("test event: %s", res.Body)
	}
	evID, err := events.ParseID(string(res.JSON202.Id))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.FanOut(ctx, evID); err != nil { // what the dispatcher does with every event
		t.Fatal(err)
	}
	got, err := c.GetEventWithResponse(ctx, res.JSON202.Id)
	expect(t, err, got.StatusCode(), got.Body, 200)
	if len(got.JSON200.Deliveries) != 1 {
		t.Fatalf("%d deliveries of a test event, want 1", len(got.JSON200.Deliveries))
	}
	// A disabled endpoint is refused; another client's is not found.
	disabled := client.Disabled
	upd, err := c.UpdateWebhookEndpointWithResponse(ctx, one.JSON201.Id, client.UpdateWebhookEndpointRequest{Status: &disabled})
	expect(t, err, upd.StatusCode(), upd.Body, 200)
	res, err = c.TestWebhookEndpointWithResponse(ctx, one.JSON201.Id, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidField)
	_, otherKey := e.newClient()
	res, err = e.client(otherKey).TestWebhookEndpointWithResponse(ctx, all.JSON201.Id, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, res.HTTPResponse, res.Body, 404, client.ErrorCodeNotFound)
}
