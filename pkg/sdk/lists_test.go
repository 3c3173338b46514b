package sdk

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/doceval/doceval/gen/client"
)

// pagedSubmissions serves 7 submissions in pages of 3, 3 and 1 and records the query
// of every request.
func pagedSubmissions(t *testing.T, queries chan<- string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/submissions" {
			t.Errorf("path %s", r.URL.Path)
		}
		queries <- r.URL.RawQuery
		start := 0
		if c := r.URL.Query().Get("cursor"); c != "" {
			start, _ = strconv.Atoi(c)
		}
		var data []map[string]any
		for i := start; i < min(start+3, 7); i++ {
			data = append(data, submissionJSON(fmt.Sprintf("crm-%d", i)))
		}
		var next any
		if start+3 < 7 {
			next = strconv.Itoa(start + 3)
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": data, "next_cursor": next})
	}
}

func TestIteratorFollowsCursorAcrossPages(t *testing.T) {
	t.Parallel()
	queries := make(chan string, 10)
	c, _ := newTestClient(t, pagedSubmissions(t, queries))
	status := client.SubmissionStatus("completed")
	params := &client.ListSubmissionsParams{Status: &status, Limit: ptr(3)}

	var got []string
	for sub, err := range c.ListSubmissions(context.Background(), params) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, sub.ExternalSubmissionId)
	}
	if fmt.Sprint(got) != "[crm-0 crm-1 crm-2 crm-3 crm-4 crm-5 crm-6]" {
		t.Errorf("got %v", got)
	}
	close(queries)
	var seen []string
	for q := range queries {
		seen = append(seen, q)
	}
	want := []string{"limit=3&status=completed", "limit=3&cursor=3&status=completed", "limit=3&cursor=6&status=completed"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("queries %q, want %q", seen, want)
	}
	if params.Cursor != nil {
		t.Error("the caller's params were modified")
	}
}

func TestIteratorStopsWhenConsumerBreaks(t *testing.T) {
	t.Parallel()
	queries := make(chan string, 10)
	c, _ := newTestClient(t, pagedSubmissions(t, queries))
	n := 0
	for _, err := range c.ListSubmissions(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 4 {
			break
		}
	}
	if len(queries) != 2 {
		t.Errorf("%d pages fetched, want 2 for 4 items", len(queries))
	}
}

func TestIteratorYieldsErrorOnceAndEnds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			writeJSON(w, http.StatusOK, map[string]any{"data": []any{submissionJSON("a")}, "next_cursor": "bogus"})
			return
		}
		writeError(w, http.StatusUnprocessableEntity, "invalid_field", "cursor")
	})
	var items, errs int
	for sub, err := range c.ListSubmissions(context.Background(), nil) {
		if err != nil {
			errs++
			if sub != nil || Code(err) != "invalid_field" {
				t.Errorf("item %v err %v", sub, err)
			}
			continue
		}
		items++
	}
	if items != 1 || errs != 1 {
		t.Errorf("%d items, %d errors", items, errs)
	}
}

func TestIteratorRefusesARepeatedCursor(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{}, "next_cursor": "same"})
	})
	var errs int
	for _, err := range c.ListTemplates(context.Background(), nil) {
		if err != nil {
			errs++
		}
	}
	if errs != 1 {
		t.Errorf("%d errors, want 1", errs)
	}
}

// Every list endpoint is wired to its path and pages through next_cursor.
func TestEveryIteratorPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		path string
		walk func(*Client) (int, error)
	}{
		{"/v1/templates", func(c *Client) (int, error) { return count(c.ListTemplates(ctx, nil)) }},
		{"/v1/checks", func(c *Client) (int, error) { return count(c.ListChecks(ctx, nil)) }},
		{"/v1/data_fields", func(c *Client) (int, error) { return count(c.ListDataFields(ctx, nil)) }},
		{"/v1/document_types", func(c *Client) (int, error) { return count(c.ListDocumentTypes(ctx, nil)) }},
		{"/v1/submissions", func(c *Client) (int, error) { return count(c.ListSubmissions(ctx, nil)) }},
		{"/v1/submissions/" + testSubmissionID.String() + "/files", func(c *Client) (int, error) {
			return count(c.ListUploads(ctx, testSubmissionID, nil))
		}},
		{"/v1/events", func(c *Client) (int, error) {
			return count(c.ListEvents(ctx, &client.ListEventsParams{SubmissionId: &testSubmissionID}))
		}},
		{"/v1/webhook_endpoints", func(c *Client) (int, error) { return count(c.ListWebhookEndpoints(ctx, nil)) }},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tc.path {
					writeError(w, http.StatusNotFound, "not_found", "")
					return
				}
				// Items are empty objects: unknown and missing fields are tolerated.
				if r.URL.Query().Get("cursor") == "" {
					writeJSON(w, http.StatusOK, map[string]any{"data": []any{map[string]any{}, map[string]any{}}, "next_cursor": "next"})
					return
				}
				writeJSON(w, http.StatusOK, map[string]any{"data": []any{map[string]any{"type": "brand.new_event"}}, "next_cursor": nil})
			})
			n, err := tc.walk(c)
			if err != nil || n != 3 {
				t.Errorf("%d items, err %v", n, err)
			}
		})
	}
}

func count[T any](seq iter.Seq2[T, error]) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func ptr[T any](v T) *T { return &v }
