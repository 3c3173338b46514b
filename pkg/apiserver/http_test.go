package apiserver_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/gen/client"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/clock"
	"github.com/doceval/doceval/pkg/events"
	"github.com/doceval/doceval/pkg/httpx"
)

func TestAuthErrors(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, good := e.newClient()
	revokedClient, _ := e.newClient()
	revokedKey, revoked, err := e.store.CreateKey(ctx, revokedClient)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RevokeKey(ctx, revokedKey.ID); err != nil {
		t.Fatal(err)
	}
	disabledClient, disabled := e.newClient()
	if _, err := e.store.SetClientDisabled(ctx, disabledClient, true); err != nil {
		t.Fatal(err)
	}
	_, catalogOnly := e.newClient(auth.Permission("catalog:read"))

	cases := []struct {
		name   string
		header string
		status int
		code   client.ErrorCode
	}{
		{"missing", "", 401, client.ErrorCodeInvalidApiKey},
		{"not bearer", "Basic " + good, 401, client.ErrorCodeInvalidApiKey},
		{"malformed", "Bearer not-a-key", 401, client.ErrorCodeInvalidApiKey},
		{"unknown", "Bearer " + auth.NewKey(), 401, client.ErrorCodeInvalidApiKey},
		{"revoked", "Bearer " + revoked, 401, client.ErrorCodeInvalidApiKey},
		{"disabled client", "Bearer " + disabled, 403, client.ErrorCodeApiClientDisabled},
		{"missing permission", "Bearer " + catalogOnly, 403, client.ErrorCodePermissionDenied},
		// A valid key with the permission passes every check and reaches the handler.
		{"valid", "Bearer " + good, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.client("").ListTemplatesWithResponse(ctx, nil, func(_ context.Context, r *http.Request) error {
				if tc.header != "" {
					r.Header.Set("Authorization", tc.header)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.status == 200 {
				if res.JSON200 == nil || len(res.JSON200.Data) == 0 {
					t.Fatalf("valid key: %d %s", res.StatusCode(), res.Body)
				}
				return
			}
			wantError(t, res.HTTPResponse, res.Body, tc.status, tc.code)
		})
	}

	// Re-enabling the client lets its key in again.
	if _, err := e.store.SetClientDisabled(ctx, disabledClient, false); err != nil {
		t.Fatal(err)
	}
	res, err := e.client(disabled).ListEventsWithResponse(ctx, nil)
	if err != nil || res.StatusCode() != 200 {
		t.Fatalf("re-enabled client: %v %d %s", err, res.StatusCode(), res.Body)
	}
}

// Writes need the :write permission, reads the :read one (x-doceval-permission).
func TestPermissionPerOperation(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	_, readOnly := e.newClient(auth.Permission("events:read"))
	c := e.client(readOnly)
	list, err := c.ListEventsWithResponse(ctx, nil)
	if err != nil || list.StatusCode() != 200 {
		t.Fatalf("list with events:read: %v %d %s", err, list.StatusCode(), list.Body)
	}
	redeliver, err := c.RedeliverEventWithResponse(ctx, events.FormatID(e.store.NewID()), nil, client.RedeliverEventJSONRequestBody{})
	if err != nil {
		t.Fatal(err)
	}
	d := wantError(t, redeliver.HTTPResponse, redeliver.Body, 403, client.ErrorCodePermissionDenied)
	if !strings.Contains(d.Message, "events:write") {
		t.Errorf("message does not name the missing permission: %q", d.Message)
	}
}

func TestEnvelopeOnFrameworkErrors(t *testing.T) {
	e := newEnv(t)
	_, key := e.newClient()

	t.Run("unknown path under /v1", func(t *testing.T) {
		res, body := e.raw("GET", "/v1/no-such-thing", key, "", nil)
		wantError(t, res, body, 404, client.ErrorCodeNotFound)
	})
	t.Run("unknown path without a key", func(t *testing.T) {
		// Authentication comes first: an anonymous caller learns nothing about routes.
		res, body := e.raw("GET", "/v1/no-such-thing", "", "", nil)
		wantError(t, res, body, 401, client.ErrorCodeInvalidApiKey)
	})
	t.Run("unknown path outside /v1", func(t *testing.T) {
		res, body := e.raw("GET", "/nothing-here", "", "", nil)
		wantError(t, res, body, 404, client.ErrorCodeNotFound)
	})
	t.Run("wrong method", func(t *testing.T) {
		res, body := e.raw("PUT", "/v1/templates", key, "application/json", strings.NewReader("{}"))
		wantError(t, res, body, 405, client.ErrorCodeMethodNotAllowed)
	})
	t.Run("malformed JSON", func(t *testing.T) {
		res, err := e.client(key).CreateTemplateWithBodyWithResponse(context.Background(), nil, "application/json", strings.NewReader(`{"display_name": `))
		if err != nil {
			t.Fatal(err)
		}
		d := wantError(t, res.HTTPResponse, res.Body, 400, client.ErrorCodeInvalidRequest)
		if d.Param != nil {
			t.Errorf("param %q on a malformed body", *d.Param)
		}
	})
	t.Run("wrong content type", func(t *testing.T) {
		res, err := e.client(key).CreateTemplateWithBodyWithResponse(context.Background(), nil, "text/plain", strings.NewReader(`display_name=x`))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res.HTTPResponse, res.Body, 400, client.ErrorCodeInvalidRequest)
	})
	t.Run("missing body", func(t *testing.T) {
		res, body := e.raw("POST", "/v1/templates", key, "application/json", nil)
		wantError(t, res, body, 400, client.ErrorCodeInvalidRequest)
	})
	t.Run("body too large", func(t *testing.T) {
		big := `{"display_name": "` + strings.Repeat("x", 2<<20) + `"}`
		res, err := e.client(key).CreateTemplateWithBodyWithResponse(context.Background(), nil, "application/json", strings.NewReader(big))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, res.HTTPResponse, res.Body, 413, client.ErrorCodeRequestTooLarge)
	})
	t.Run("missing field", func(t *testing.T) {
		res, err := e.client(key).CreateTemplateWithBodyWithResponse(context.Background(), nil, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		d := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidField)
		if d.Param == nil || *d.Param != "display_name" {
			t.Errorf("param %v, want display_name", d.Param)
		}
	})
	t.Run("nested field", func(t *testing.T) {
		body := `{"display_name": "T", "check_items": [{"check_id": "name_consistency"}, {"check_id": 7}]}`
		res, err := e.client(key).CreateTemplateWithBodyWithResponse(context.Background(), nil, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		d := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidField)
		if d.Param == nil || *d.Param != "check_items[1].check_id" {
			t.Errorf("param %v, want check_items[1].check_id", deref(d.Param))
		}
	})
	t.Run("malformed path id", func(t *testing.T) {
		// The typed client cannot send a malformed UUID; curl can.
		res, body := e.raw("GET", "/v1/submissions/not-a-uuid", key, "", nil)
		d := wantError(t, res, body, 422, client.ErrorCodeInvalidField)
		if deref(d.Param) != "submission_id" {
			t.Errorf("param %q, want submission_id", deref(d.Param))
		}
	})
	t.Run("malformed event id", func(t *testing.T) {
		res, err := e.client(key).GetEventWithResponse(context.Background(), "evt_NOT-AN-ID")
		if err != nil {
			t.Fatal(err)
		}
		d := wantError(t, res.HTTPResponse, res.Body, 422, client.ErrorCodeInvalidField)
		if deref(d.Param) != "event_id" {
			t.Errorf("param %q, want event_id", deref(d.Param))
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// panicking answers ListTemplates with a panic; every other operation is the real one.
type panicking struct{ api.StrictServerInterface }

func (panicking) ListTemplates(context.Context, api.ListTemplatesRequestObject) (api.ListTemplatesResponseObject, error) {
	panic("secret internal detail")
}

func TestPanicIsInternalError(t *testing.T) {
	e := newEnv(t, withHandlers(func(real api.StrictServerInterface) api.StrictServerInterface {
		return panicking{real}
	}))
	_, key := e.newClient()
	res, err := e.client(key).ListTemplatesWithResponse(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, res.HTTPResponse, res.Body, 500, client.ErrorCodeInternalError)
	if s := string(res.Body); strings.Contains(s, "secret") || strings.Contains(s, "goroutine") || strings.Contains(s, ".go:") {
		t.Errorf("panic detail leaked: %s", s)
	}
	// The server survives and serves the next request.
	again, err := e.client(key).ListEventsWithResponse(context.Background(), nil)
	if err != nil || again.StatusCode() != 200 {
		t.Fatalf("after panic: %v %d", err, again.StatusCode())
	}
}

func TestRequestIDIsKeptOrMade(t *testing.T) {
	e := newEnv(t)
	_, key := e.newClient()
	mine := "partner-trace-0042"
	res, err := e.client(key).GetTemplateWithResponse(context.Background(), "no_such_template", func(_ context.Context, r *http.Request) error {
		r.Header.Set("x-request-id", mine)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := wantError(t, res.HTTPResponse, res.Body, 404, client.ErrorCodeNotFound)
	if d.RequestId != mine || res.HTTPResponse.Header.Get("x-request-id") != mine {
		t.Errorf("caller's request id not kept: header %q, body %q", res.HTTPResponse.Header.Get("x-request-id"), d.RequestId)
	}
	// An unacceptable one (too short, odd characters) is replaced by a fresh id.
	res, err = e.client(key).GetTemplateWithResponse(context.Background(), "no_such_template", func(_ context.Context, r *http.Request) error {
		r.Header.Set("x-request-id", "a b")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.HTTPResponse.Header.Get("x-request-id"); !strings.HasPrefix(got, "req_") {
		t.Errorf("request id %q, want a fresh req_ id", got)
	}
}

func TestListLimitAndCursor(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	id, key := e.newClient()
	c := e.client(key)
	emitted := e.emit(id, 105, events.FileReady)

	// Default page size is 50; above 100 is clamped to 100.
	res, err := c.ListEventsWithResponse(ctx, nil)
	if err != nil || res.JSON200 == nil {
		t.Fatalf("list: %v %s", err, res.Body)
	}
	if n := len(res.JSON200.Data); n != 50 {
		t.Errorf("default page: %d events, want 50", n)
	}
	big := client.Limit(1000)
	res, err = c.ListEventsWithResponse(ctx, &client.ListEventsParams{Limit: &big})
	if err != nil || res.JSON200 == nil {
		t.Fatalf("list: %v %s", err, res.Body)
	}
	if n := len(res.JSON200.Data); n != 100 {
		t.Errorf("limit 1000: %d events, want 100", n)
	}

	// Following next_cursor visits every event once, newest first, and ends with null.
	var seen []string
	limit := client.Limit(40)
	params := &client.ListEventsParams{Limit: &limit}
	for pages := 0; ; pages++ {
		res, err := c.ListEventsWithResponse(ctx, params)
		if err != nil || res.JSON200 == nil {
			t.Fatalf("page %d: %v %s", pages, err, res.Body)
		}
		for _, ev := range res.JSON200.Data {
			seen = append(seen, ev.Id)
		}
		if res.JSON200.NextCursor == nil {
			break
		}
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		params.Cursor = res.JSON200.NextCursor
	}
	if len(seen) != len(emitted) {
		t.Fatalf("visited %d events, emitted %d", len(seen), len(emitted))
	}
	for i := range seen { // emitted oldest first, listed newest first
		if seen[i] != emitted[len(emitted)-1-i] {
			t.Fatalf("event %d: %s, want %s", i, seen[i], emitted[len(emitted)-1-i])
		}
	}

	for _, tc := range []struct{ query, param string }{
		{"limit=0", "limit"},
		{"limit=-3", "limit"},
		{"limit=ten", "limit"},
		{"limit=2.5", "limit"},
		{"cursor=not-a-cursor", "cursor"},
		{"cursor=eyJ0IjoxfQ", "cursor"}, // base64 of a JSON object that is no cursor
	} {
		t.Run(tc.query, func(t *testing.T) {
			res, body := e.raw("GET", "/v1/events?"+tc.query, key, "", nil)
			d := wantError(t, res, body, 422, client.ErrorCodeInvalidField)
			if deref(d.Param) != tc.param {
				t.Errorf("param %q, want %q", deref(d.Param), tc.param)
			}
		})
	}
}

// Another client's resources answer 404 not_found, never 403: their existence is not
// revealed, and lists never include them.
func TestTenantIsolation(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	alice, aliceKey := e.newClient()
	bob, bobKey := e.newClient()
	aliceEvents := e.emit(alice, 2, events.EvaluationCompleted)
	e.emit(bob, 1, events.FileReady)

	got, err := e.client(aliceKey).GetEventWithResponse(ctx, aliceEvents[0])
	if err != nil || got.JSON200 == nil {
		t.Fatalf("owner reads its event: %v %d %s", err, got.StatusCode(), got.Body)
	}
	if got.JSON200.Id != aliceEvents[0] || got.JSON200.ApiClientId != alice || got.JSON200.Deliveries == nil {
		t.Errorf("event detail: %+v", got.JSON200)
	}

	other, err := e.client(bobKey).GetEventWithResponse(ctx, aliceEvents[0])
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, other.HTTPResponse, other.Body, 404, client.ErrorCodeNotFound)
	missing, err := e.client(bobKey).GetEventWithResponse(ctx, events.FormatID(e.store.NewID()))
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, missing.HTTPResponse, missing.Body, 404, client.ErrorCodeNotFound)
	if string(stripRequestID(other.Body)) != string(stripRequestID(missing.Body)) {
		t.Errorf("another client's event and a missing one answer differently:\n%s\n%s", other.Body, missing.Body)
	}

	list, err := e.client(bobKey).ListEventsWithResponse(ctx, nil)
	if err != nil || list.JSON200 == nil {
		t.Fatal(err, list.Body)
	}
	if len(list.JSON200.Data) != 1 || list.JSON200.Data[0].ApiClientId != bob {
		t.Errorf("bob's list: %+v", list.JSON200.Data)
	}

	// The store seam itself: a tenant never reads another tenant's rows.
	id, _ := events.ParseID(aliceEvents[1])
	if _, err := e.store.Tenant(bob).Event(ctx, id); err == nil {
		t.Error("bob's tenant read alice's event")
	}
	if ev, err := e.store.Tenant(alice).Event(ctx, id); err != nil || ev.ID != id {
		t.Errorf("alice's tenant: %v", err)
	}
}

func stripRequestID(body []byte) []byte {
	s := string(body)
	if i := strings.Index(s, `"request_id"`); i >= 0 {
		return []byte(s[:i])
	}
	return body
}

func TestRateLimiting(t *testing.T) {
	ctx := context.Background()
	fake := clock.NewFake(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	e := newEnv(t, withRateLimiter(httpx.NewRateLimiter(1, 3, fake.Now)))
	_, key := e.newClient()
	_, otherKey := e.newClient()
	c := e.client(key)

	// Every answer says where the client stands: its burst, what is left of it, and the
	// seconds until it is whole again at 1 request per second.
	stands := func(res *http.Response, remaining, reset string) {
		t.Helper()
		got := []string{res.Header.Get("RateLimit-Limit"), res.Header.Get("RateLimit-Remaining"), res.Header.Get("RateLimit-Reset")}
		if want := []string{"3", remaining, reset}; !slices.Equal(got, want) {
			t.Errorf("RateLimit-Limit, -Remaining, -Reset %q, want %q", got, want)
		}
	}
	for i := range 3 { // the burst
		res, err := c.ListEventsWithResponse(ctx, nil)
		if err != nil || res.StatusCode() != 200 {
			t.Fatalf("request %d within the burst: %v %d", i, err, res.StatusCode())
		}
		stands(res.HTTPResponse, strconv.Itoa(2-i), strconv.Itoa(i+1))
	}
	res, err := c.ListEventsWithResponse(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, res.HTTPResponse, res.Body, 429, client.ErrorCodeRateLimited)
	if ra := res.HTTPResponse.Header.Get("retry-after"); ra != "1" {
		t.Errorf("retry-after %q, want 1", ra)
	}
	stands(res.HTTPResponse, "0", "3")

	// Buckets are per client: another client is unaffected.
	if res, err := e.client(otherKey).ListEventsWithResponse(ctx, nil); err != nil || res.StatusCode() != 200 {
		t.Fatalf("other client: %v %d", err, res.StatusCode())
	}
	// After retry-after has passed, the client is served again.
	fake.Advance(time.Second)
	if res, err := c.ListEventsWithResponse(ctx, nil); err != nil || res.StatusCode() != 200 {
		t.Fatalf("after waiting: %v %d", err, res.StatusCode())
	}
	// 2.5 requests back, 1 spent: 1.5 left, of which 1 whole; 1.5 s to the full burst.
	fake.Advance(2500 * time.Millisecond)
	if res, err := c.ListEventsWithResponse(ctx, nil); err != nil || res.StatusCode() != 200 {
		t.Fatalf("after 2.5 s: %v %d", err, res.StatusCode())
	} else {
		stands(res.HTTPResponse, "1", "2")
	}
}
