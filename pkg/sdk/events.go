package sdk

import (
	"context"
	"net/http"

	"github.com/doceval/doceval/gen/client"
)

// GetEvent (getEvent) returns the event with its deliveries, one per webhook endpoint it
// was routed to, each with its attempts. eventID is "evt_" followed by a UUID.
func (c *Client) GetEvent(ctx context.Context, eventID string, opts ...RequestOption) (*client.EventDetail, error) {
	return send[client.EventDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.GetEvent(ctx, eventID, editors...)
	})
}

// RedeliverEvent (redeliverEvent) requeues the event's deliveries: every one that did
// not succeed, or with req.EndpointId only that endpoint's, whatever its state. 422
// invalid_field when no delivery matches.
func (c *Client) RedeliverEvent(ctx context.Context, eventID string, req client.RedeliverEventRequest, opts ...RequestOption) (*client.EventDetail, error) {
	return send[client.EventDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.RedeliverEvent(ctx, eventID, nil, req, editors...)
	})
}

// ListEventFeed (listEventFeed) reads the event stream forward, oldest first, from
// params.Cursor, the next_cursor of the previous read, which is never null: store it
// after handling the events and pass it next time; nothing is skipped or repeated
// across reads, reconnects and restarts. Without Cursor the feed starts at the current
// end (data empty), or with FromStart at the oldest retained event. Wait (up to 30
// seconds) holds the read open until an event arrives; keep the client's timeout above
// it. A cursor older than the retention is 422 invalid_field with param cursor. (After is
// the former name of Cursor and still works; the cursor is sent under both names, so a
// deployment older than the name cursor reads on from it instead of from its end.)
//
//	params := &client.ListEventFeedParams{Cursor: saved, Wait: &thirty}
//	for {
//		feed, err := c.ListEventFeed(ctx, params)
//		if err != nil {
//			return err
//		}
//		for _, ev := range feed.Data {
//			handle(ev)
//		}
//		save(feed.NextCursor)
//		params.Cursor = &feed.NextCursor
//	}
func (c *Client) ListEventFeed(ctx context.Context, params *client.ListEventFeedParams, opts ...RequestOption) (*client.EventFeed, error) {
	params = FeedParamsForEveryServer(params)
	return send[client.EventFeed](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.ListEventFeed(ctx, params, editors...)
	})
}

// FeedParamsForEveryServer returns params with Cursor also sent as After, its former
// name (a copy; params is not changed). A deployment from before the name cursor ignores
// it as an unknown parameter and reads from the end of the feed, which would skip every
// event after the cursor without an error; one that knows both takes the two when they
// are equal. Callers of the generated client's ListEventFeed use it as ListEventFeed does.
func FeedParamsForEveryServer(params *client.ListEventFeedParams) *client.ListEventFeedParams {
	if params == nil || params.Cursor == nil || params.After != nil {
		return params
	}
	both := *params
	both.After = params.Cursor
	return &both
}

// TriggerEvent (triggerEvent) emits a sample event of req.Type, its data the spec's
// example for the type and its envelope marked triggered, to build and test a receiver
// for every event type. Without req.EndpointId it goes, signed, to every active
// endpoint subscribed to the type (and to the event feed that `doceval listen` reads);
// with it, to that endpoint only, whatever its events filter. A type the API does not
// know, or an endpoint that does not exist or is disabled, is 422 invalid_field
// (param type or endpoint_id).
func (c *Client) TriggerEvent(ctx context.Context, req client.TriggerEventRequest, opts ...RequestOption) (*client.EventDetail, error) {
	return send[client.EventDetail](ctx, opts, func(ctx context.Context, editors ...client.RequestEditorFn) (*http.Response, error) {
		return c.api.TriggerEvent(ctx, nil, req, editors...)
	})
}
