package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doceval/doceval/pkg/apiserver"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/dbtest"
	"github.com/doceval/doceval/pkg/httpx"
	"github.com/doceval/doceval/pkg/store"
)

// Whatever JSON a client sends to the catalog and template writes, the answer is a
// success or a 4xx in the error envelope: never a 500, never a panic.
func FuzzCatalogWrites(f *testing.F) {
	st := store.New(dbtest.New(f))
	_, _, key, err := st.CreateClient(context.Background(), "fuzz", auth.AllPermissions)
	if err != nil {
		f.Fatal(err)
	}
	e, err := apiserver.New(apiserver.Deps{
		Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Registry: prometheus.NewRegistry(),
		RateLimiter: httpx.NewRateLimiter(0, 1, nil),
	})
	if err != nil {
		f.Fatal(err)
	}
	srv := httptest.NewServer(e)
	f.Cleanup(srv.Close)

	for _, seed := range []struct{ method, path, body string }{
		{"POST", "/v1/checks", `{"title": "Ä check", "prompt": "p", "category": "income", "product_types": ["personal_loan"]}`},
		{"POST", "/v1/data_fields", `{"display_name": "x", "prompt": "p", "value_format": "date"}`},
		{"POST", "/v1/document_types", `{"display_name": "!!!", "description": ""}`},
		{"POST", "/v1/templates", `{"display_name": "T", "document_requirements": [{"document_type_id": "id_card", "label": "L"}], "check_items": [{"check_id": "documents_readable"}, {"check_id": "documents_readable"}], "data_field_items": [{"data_field_id": "iban", "confidence_threshold": 0}]}`},
		{"PATCH", "/v1/templates/personal_loan", `{"expected_revision": 1, "is_default": true}`},
		{"PUT", "/v1/templates/personal_loan/check_items", `{"expected_revision": 1, "items": [{"check_id": "x"}]}`},
		{"PATCH", "/v1/data_fields/iban", `{"value_format": null}`},
		{"POST", "/v1/templates/personal_loan/duplicate", `{}`},
		{"POST", "/v1/templates/personal_loan/duplicate", ``},
	} {
		f.Add(seed.method, seed.path, seed.body)
	}
	f.Fuzz(func(t *testing.T, method, path, body string) {
		if !strings.HasPrefix(path, "/v1/") || strings.ContainsAny(path, " ?#\x00\r\n") {
			return
		}
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := srv.Client().Do(req)
		if err != nil {
			return // not a request the server could be sent
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 500 && res.StatusCode != http.StatusNotImplemented {
			t.Fatalf("%s %s %q: %d %s", method, path, body, res.StatusCode, b)
		}
		if res.StatusCode >= 400 {
			var env struct {
				Error struct{ Code, RequestID string } `json:"error"`
			}
			if json.Unmarshal(b, &env) != nil || env.Error.Code == "" {
				t.Fatalf("%s %s %q: %d without the envelope: %s", method, path, body, res.StatusCode, b)
			}
		}
	})
}
