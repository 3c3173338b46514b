package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/apierr"
	"github.com/doceval/doceval/pkg/page"
	"github.com/doceval/doceval/pkg/store"
)

// eventRetention is how long events are kept (DOCEVAL_EVENT_RETENTION's default): a feed
// cursor older than that may have missed events that were deleted, so it is refused.
const eventRetention = 30 * 24 * time.Hour

// A long-polling feed read looks for new events after feedPoll, then ever less often,
// up to feedPollMax: a quiet feed costs a few reads per wait, not one every 250 ms.
const (
	feedPoll    = 250 * time.Millisecond
	feedPollMax = 2 * time.Second
)

// ListEventFeed reads the client's events forward from a position (listEventFeed),
// waiting up to `wait` seconds for the first one when there is none yet, unless the
// client's waiting reads on this replica are at their bound (MaxFeedWaits).
func (s *Server) ListEventFeed(ctx context.Context, req api.ListEventFeedRequestObject) (api.ListEventFeedResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	limit, err := page.Limit((*int)(req.Params.Limit))
	if err != nil {
		return nil, err
	}
	param, cursor, err := feedCursor(req.Params)
	if err != nil {
		return nil, err
	}
	var pos store.FeedPosition
	if cursor != "" {
		if pos, err = store.DecodeFeedPosition(cursor); err != nil {
			return nil, apierr.Field(param, param+" is not a next_cursor of this feed")
		}
		if s.store.Now().Sub(pos.At) > eventRetention {
			return nil, apierr.Field(param, "the cursor is older than the event retention (30 days): events may have been deleted since; start again without "+param)
		}
	} else if pos, err = t.FeedStart(ctx, req.Params.FromStart != nil && *req.Params.FromStart); err != nil {
		return nil, err
	}
	var types []string
	if req.Params.Type != nil {
		for _, typ := range *req.Params.Type {
			types = append(types, string(typ))
		}
	}
	wait := 0
	if req.Params.Wait != nil && *req.Params.Wait > 0 {
		// A client already holding its waiting reads on this replica gets this one
		// answered at once, as with wait=0: a normal page, maybe empty, never an error.
		if release, ok := s.feedWaits.Take(t.ClientID()); ok {
			defer release()
			wait = *req.Params.Wait
		}
	}
	deadline := time.Now().Add(time.Duration(wait) * time.Second)
	for pause := feedPoll; ; pause = min(2*pause, feedPollMax) {
		rows, next, err := t.Feed(ctx, pos, types, limit)
		if err != nil {
			return nil, err
		}
		if len(rows) > 0 || !time.Now().Before(deadline) {
			feed := api.EventFeed{Data: make([]api.Event, len(rows)), NextCursor: next.Encode()}
			for i, r := range rows {
				if err := json.Unmarshal(r.Envelope, &feed.Data[i]); err != nil {
					return nil, fmt.Errorf("event %s: %w", r.ID, err)
				}
			}
			return api.ListEventFeed200JSONResponse{Body: feed}, nil
		}
		pos = next
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(pause, time.Until(deadline))):
		}
	}
}

// feedCursor is listEventFeed's position and the parameter it came in: `cursor`, or
// `after`, its deprecated name with the same meaning. Both with different values are
// refused (invalid_field on cursor) rather than one silently winning; "" is no position.
func feedCursor(p api.ListEventFeedParams) (param, cursor string, err error) {
	switch c, a := p.Cursor, p.After; {
	case c != nil && a != nil && *c != *a:
		return "", "", apierr.Field("cursor", "cursor and after (its former name) differ: send cursor alone")
	case c != nil:
		return "cursor", *c, nil
	case a != nil:
		return "after", *a, nil
	}
	return "cursor", "", nil
}

// TestWebhookEndpoint sends a webhook_endpoint.test event to one endpoint
// (testWebhookEndpoint).
func (s *Server) TestWebhookEndpoint(ctx context.Context, req api.TestWebhookEndpointRequestObject) (api.TestWebhookEndpointResponseObject, error) {
	t, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	ev, err := t.TestWebhookEndpoint(ctx, req.EndpointId)
	if err != nil {
		return nil, err
	}
	detail, err := s.eventDetail(ctx, ev)
	if err != nil {
		return nil, err
	}
	return api.TestWebhookEndpoint202JSONResponse{Body: detail}, nil
}
