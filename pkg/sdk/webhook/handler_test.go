package webhook

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is a Handler whose callback records events and fails while failing is set.
type receiver struct {
	mu      sync.Mutex
	events  []Event
	failing bool
}

func (r *receiver) handle(_ context.Context, e Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing {
		return errors.New("database down")
	}
	r.events = append(r.events, e)
	return nil
}

func deliver(h http.Handler, body []byte, header string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/webhooks/doceval", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if header != "" {
		req.Header.Set(SignatureHeader, header)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHandlerVerifiesDeduplicatesAndAcknowledges(t *testing.T) {
	t.Parallel()
	r := &receiver{}
	h := Handler([]string{"whsec_current"}, NewMemoryDedupStore(0), r.handle, WithClock(func() time.Time { return signedAt }))
	header := Sign(deliveryBody, signedAt, "whsec_current")

	if rec := deliver(h, deliveryBody, header); rec.Code != http.StatusOK {
		t.Fatalf("first delivery: %d %s", rec.Code, rec.Body)
	}
	if rec := deliver(h, deliveryBody, header); rec.Code != http.StatusOK {
		t.Fatalf("duplicate delivery: %d %s", rec.Code, rec.Body)
	}
	if len(r.events) != 1 || r.events[0].ID != "evt_0190a1b2-0000-7000-8000-000000000000" || r.events[0].Type != "file.ready" {
		t.Errorf("handled %+v, want the event once", r.events)
	}
}

func TestHandlerRefusesBadSignatures(t *testing.T) {
	t.Parallel()
	r := &receiver{}
	h := Handler([]string{"whsec_current"}, nil, r.handle, WithClock(func() time.Time { return signedAt }))
	tampered := bytes.Replace(deliveryBody, []byte("file.ready"), []byte("file.fails"), 1)
	for name, tc := range map[string]struct {
		body   []byte
		header string
	}{
		"no header":     {deliveryBody, ""},
		"tampered body": {tampered, Sign(deliveryBody, signedAt, "whsec_current")},
		"wrong secret":  {deliveryBody, Sign(deliveryBody, signedAt, "whsec_other")},
		"stale":         {deliveryBody, Sign(deliveryBody, signedAt.Add(-time.Hour), "whsec_current")},
	} {
		if rec := deliver(h, tc.body, tc.header); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d", name, rec.Code)
		}
	}
	if len(r.events) != 0 {
		t.Errorf("handled %d unverified events", len(r.events))
	}
}

// A failing callback answers 500 and releases its claim: the retry is handled.
func TestHandlerFailureLetsTheRetryThrough(t *testing.T) {
	t.Parallel()
	r := &receiver{failing: true}
	h := Handler([]string{"s"}, NewMemoryDedupStore(time.Hour), r.handle, WithClock(func() time.Time { return signedAt }))
	header := Sign(deliveryBody, signedAt, "s")
	if rec := deliver(h, deliveryBody, header); rec.Code != http.StatusInternalServerError {
		t.Fatalf("failing callback: %d", rec.Code)
	}
	r.failing = false
	if rec := deliver(h, deliveryBody, header); rec.Code != http.StatusOK || len(r.events) != 1 {
		t.Fatalf("retry: %d, %d events", rec.Code, len(r.events))
	}
}

func TestHandlerPassesUnknownEventTypes(t *testing.T) {
	t.Parallel()
	r := &receiver{}
	h := Handler([]string{"s"}, nil, r.handle, WithClock(func() time.Time { return signedAt }))
	body := []byte(`{"id":"evt_9","type":"brand.new","created_at":"2026-01-02T03:04:05Z","api_client_id":"0190a1b2-0000-7000-8000-00000000000c","data":{"x":[1,2]}}`)
	if rec := deliver(h, body, Sign(body, signedAt, "s")); rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if len(r.events) != 1 || string(r.events[0].Data) != `{"x":[1,2]}` {
		t.Errorf("events %+v", r.events)
	}
}

func TestHandlerLimitsAndMethods(t *testing.T) {
	t.Parallel()
	r := &receiver{}
	h := Handler([]string{"s"}, nil, r.handle, WithMaxBodyBytes(64), WithClock(func() time.Time { return signedAt }))
	big := []byte(`{"id":"evt_1","type":"file.ready","data":{"pad":"` + strings.Repeat("x", 100) + `"}}`)
	if rec := deliver(h, big, Sign(big, signedAt, "s")); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("large body: %d", rec.Code)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", rec.Code)
	}
	notEnvelope := []byte(`{"hello":1}`)
	if rec := deliver(h, notEnvelope, Sign(notEnvelope, signedAt, "s")); rec.Code != http.StatusBadRequest {
		t.Errorf("signed non-envelope: %d", rec.Code)
	}
}

func TestMemoryDedupStoreExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := signedAt
	m := newMemoryDedupStore(time.Hour, func() time.Time { return now })
	if ok, _ := m.Claim(ctx, "evt_a"); !ok {
		t.Fatal("first claim refused")
	}
	if ok, _ := m.Claim(ctx, "evt_a"); ok {
		t.Fatal("second claim granted")
	}
	now = now.Add(time.Hour)
	if ok, _ := m.Claim(ctx, "evt_a"); !ok {
		t.Fatal("claim after the TTL refused")
	}
	// Expired entries are swept as claims go by, so memory follows the live set.
	for i := range 2 * sweepEvery {
		now = now.Add(2 * time.Hour)
		m.Claim(ctx, "evt_"+string(rune('a'+i%26))+time.Duration(i).String())
	}
	if n := m.Len(); n > sweepEvery {
		t.Errorf("%d ids remembered, want at most %d", n, sweepEvery)
	}
}
