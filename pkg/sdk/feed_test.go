package sdk

import (
	"context"
	"net/http"
	"testing"

	"github.com/doceval/doceval/gen/client"
)

// ListEventFeed sends the cursor under both its names: a deployment from before the
// name cursor knows only after, and reading from its end instead would skip events
// without an error. The caller's params are not changed, and an explicit After stays.
func TestListEventFeedSendsTheCursorAsAfterToo(t *testing.T) {
	t.Parallel()
	var query []map[string][]string
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		query = append(query, r.URL.Query())
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{}, "next_cursor": "c2"})
	})
	cursor := "c1"
	params := &client.ListEventFeedParams{Cursor: &cursor}
	if _, err := c.ListEventFeed(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	if got := query[0]; len(got["cursor"]) != 1 || got["cursor"][0] != "c1" || len(got["after"]) != 1 || got["after"][0] != "c1" {
		t.Errorf("query %v, want cursor=c1 and after=c1", got)
	}
	if params.After != nil {
		t.Error("the caller's params were changed")
	}

	if _, err := c.ListEventFeed(context.Background(), &client.ListEventFeedParams{}); err != nil {
		t.Fatal(err)
	}
	if got := query[1]; got["cursor"] != nil || got["after"] != nil {
		t.Errorf("without a cursor: query %v", got)
	}
	older := "c0"
	if _, err := c.ListEventFeed(context.Background(), &client.ListEventFeedParams{Cursor: &cursor, After: &older}); err != nil {
		t.Fatal(err)
	}
	if got := query[2]; got["after"][0] != "c0" {
		t.Errorf("an explicit after was replaced: %v", got)
	}
}
