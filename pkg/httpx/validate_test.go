package httpx_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/doceval/doceval/gen/api"
	"github.com/doceval/doceval/pkg/auth"
	"github.com/doceval/doceval/pkg/httpx"
)

func TestFieldPath(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"display_name"}, "display_name"},
		{[]string{"items", "2", "check_id"}, "items[2].check_id"},
		{[]string{"metadata", "a", "0", "1"}, "metadata.a[0][1]"},
	} {
		if got := httpx.FieldPath(tc.in); got != tc.want {
			t.Errorf("FieldPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// contractServer is the contract middleware in front of a handler that answers 204, as
// a caller with every permission.
func contractServer(t testing.TB) *echo.Echo {
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	ct, err := httpx.NewContract(doc, httpx.BodyLimits{JSON: 1 << 20, Upload: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	e.HTTPErrorHandler = httpx.ErrorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	principal := auth.Principal{ClientID: uuid.New(), Permissions: auth.AllPermissions}
	e.Use(httpx.RequestID(), func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.SetRequest(c.Request().WithContext(auth.WithPrincipal(c.Request().Context(), principal)))
			return next(c)
		}
	}, ct.Middleware())
	e.Any("/*", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	return e
}

// Whatever body a caller sends to a JSON endpoint, the answer is either the handler
// (the body matched the schema) or 400/413/422 in the error envelope — never a 500.
func FuzzContractBody(f *testing.F) {
	for _, s := range []string{
		`{"display_name":"T"}`, `{}`, `{"display_name":`, `[]`, `null`, `"x"`, ``,
		`{"display_name":"T","check_items":[{"check_id":7}]}`,
		`{"display_name":"T","document_requirements":[{"document_type_id":"payslip","required":"yes"}]}`,
		`{"display_name":"\u0000"}`, `{"display_name":"T","x":{"y":[1,{"z":null}]}}`,
	} {
		f.Add("/v1/templates", s)
	}
	f.Add("/v1/submissions", `{"external_submission_id":"","metadata":[]}`)
	f.Add("/v1/webhook_endpoints", `{"url":"ftp://x","events":["nope"]}`)
	e := contractServer(f)
	f.Fuzz(func(t *testing.T, path, body string) {
		if !strings.HasPrefix(path, "/v1/") {
			return
		}
		req, err := http.NewRequest(http.MethodPost, "http://x"+path, strings.NewReader(body))
		if err != nil {
			return // not a URL a client can send
		}
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusNoContent:
			return
		case 400, 404, 405, 413, 422:
		default:
			t.Fatalf("POST %s %q: status %d: %s", path, body, rec.Code, rec.Body)
		}
		var env struct {
			Error struct{ Code, Message, RequestID string } `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" {
			t.Fatalf("POST %s %q: %d without the envelope: %s", path, body, rec.Code, rec.Body)
		}
	})
}
